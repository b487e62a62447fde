package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/runner"
)

// These tests run the example through the real host, package runner: the
// plugin is built as its build hook does, recorded in plugins.toml as a
// live-linked local install, and run in a git project.

type fledgeEnv struct {
	paths   home.Paths
	project string
	home    string
}

func newFledgeEnv(t *testing.T, grants manifest.Capabilities) *fledgeEnv {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	paths, err := home.New(filepath.Join(base, "fledge"))
	if err != nil {
		t.Fatal(err)
	}
	// A live link: plugins/<name> points at the source tree, where the
	// build hook put the binary.
	src := builtTree(t)
	if err := os.MkdirAll(paths.PluginsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, paths.PluginDir("fledge-plugin-hello")); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	err = lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock()).Update(func(f *lockfile.File) error {
		f.Put(lockfile.Plugin{
			Name: m.Plugin.Name, Source: src, Version: m.Plugin.Version, Installed: "2026-01-01",
			Commands: m.CommandNames(), Capabilities: grants, Requested: m.Capabilities,
			Kind: lockfile.KindLocalLink, Protocol: m.Plugin.Protocol,
			Hooks: m.Hooks.Map(), BuildCommand: m.Hooks.Build,
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	project := filepath.Join(base, "work", "nest")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "go.mod"), []byte("module example.com/nest\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := git.PlainInit(project, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("go.mod"); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	head, err := wt.Commit("init", &git.CommitOptions{Author: sig})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateTag("v0.1.0", head, nil); err != nil {
		t.Fatal(err)
	}
	return &fledgeEnv{paths: paths, project: project, home: filepath.Join(base, "home")}
}

var (
	treeOnce sync.Once
	treeDir  string
	treeErr  error
)

// builtTree builds the plugin once per test binary (the build dominates
// these tests' time) and returns a plugin tree holding it.
func builtTree(t *testing.T) string {
	t.Helper()
	treeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fledge-hello-tree")
		if err != nil {
			treeErr = err
			return
		}
		treeDir, treeErr = dir, buildInto(dir)
	})
	if treeErr != nil {
		t.Fatal(treeErr)
	}
	return treeDir
}

func (e *fledgeEnv) runner(ui runner.UI, interactive bool, stdout, stderr *testutil.SyncBuffer) *runner.Runner {
	return &runner.Runner{
		Paths: e.paths, Version: "0.0.0-test", UI: ui, Interactive: interactive,
		Stdout: stdout, Stderr: stderr,
		Environ:  func() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "LANG=C"} },
		Getwd:    func() (string, error) { return e.project, nil },
		UserHome: e.home,
		Timeouts: runner.Timeouts{Term: 2 * time.Second, Kill: 4 * time.Second},
	}
}

// scriptedUI answers like a person who types "Ada", picks the magpie and
// keeps every other default, and records what fledge showed.
type scriptedUI struct {
	mu         sync.Mutex
	asked      []string
	logs       []string
	progress   []runner.Progress
	warnings   []string
	onProgress func(runner.Progress)
}

func (u *scriptedUI) ask(q runner.Question) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = append(u.asked, q.Message)
}

func (u *scriptedUI) Prompt(_ context.Context, q runner.Question) (string, error) {
	u.ask(q)
	// non_empty refuses a blank answer; an empty one stands for the
	// default, which passes.
	if q.Validate == nil || q.Validate(" ") == nil || q.Validate("") != nil || q.Default != "world" {
		return "", errors.New("the name prompt lost its non_empty validator or its default")
	}
	return "Ada", nil
}

func (u *scriptedUI) Confirm(_ context.Context, q runner.Question, def bool) (bool, error) {
	u.ask(q)
	return def, nil
}

func (u *scriptedUI) Select(_ context.Context, q runner.Question, options []string, _ int) (int, error) {
	u.ask(q)
	for i, o := range options {
		if o == "magpie" {
			return i, nil
		}
	}
	return 0, errors.New("no magpie")
}

func (u *scriptedUI) MultiSelect(_ context.Context, q runner.Question, _ []string, defaults []int) ([]int, error) {
	u.ask(q)
	return defaults, nil
}

func (u *scriptedUI) Progress(p runner.Progress) {
	u.mu.Lock()
	u.progress = append(u.progress, p)
	f := u.onProgress
	u.mu.Unlock()
	if f != nil {
		f(p)
	}
}

func (u *scriptedUI) Pause() {}

func (u *scriptedUI) Log(_ string, level runner.Level, message string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.logs = append(u.logs, string(level)+": "+message)
}

func (u *scriptedUI) Warn(_ string, message string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.warnings = append(u.warnings, message)
}

// matchLines checks out line by line against regular expressions.
func matchLines(t *testing.T, out string, want []string) {
	t.Helper()
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("output has %d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if !regexp.MustCompile("^" + want[i] + "$").MatchString(got[i]) {
			t.Errorf("line %d = %q, want /%s/", i+1, got[i], want[i])
		}
	}
}

var everything = manifest.Capabilities{Exec: true, Store: true, Metadata: true}

func TestThroughRunnerInteractiveThenNot(t *testing.T) {
	t.Parallel()
	env := newFledgeEnv(t, everything)
	ui := &scriptedUI{}
	var stdout, stderr testutil.SyncBuffer
	res, err := env.runner(ui, true, &stdout, &stderr).Run(context.Background(),
		runner.Request{Command: "hello", Args: []string{"", "3", "0"}})
	if err != nil || res.ExitCode != 0 || res.Protocol != "fledge-v1" || len(res.Denied) > 0 {
		t.Fatalf("run = %+v, %v; stderr: %s", res, err, stderr.String())
	}
	matchLines(t, stdout.String(), []string{
		`Hello from a Go plugin, in nest \(go\) on branch master\.`,
		`Hello, Ada! A fine choice: the magpie\.`,
		`store: saved "Ada" and read it back\.`,
		// git may be missing where the tests run; exec's answer is then 127.
		`exec: git rev-parse --short HEAD (→ [0-9a-f]{7,}|exited 127: .*)`,
		`metadata: tags 1, changed files 0, recent commits 1\.`,
		`Done: every fledge-v1 message type, from Go\.`,
	})
	if want := []string{"What's your name?", "Show a progress bar?", "Favourite corvid?", "Which extras should I show?"}; strings.Join(ui.asked, "|") != strings.Join(want, "|") {
		t.Errorf("asked %q, want %q", ui.asked, want)
	}
	var bars, spinners, dones int
	for _, p := range ui.progress {
		switch {
		case p.Done:
			dones++
		case p.Determinate:
			bars++
		default:
			spinners++
		}
	}
	if bars != 4 || spinners != 1 || dones < 2 {
		t.Errorf("progress: %d bar updates, %d spinners, %d clears; want 4, 1, ≥2", bars, spinners, dones)
	}
	if len(ui.logs) != 2 || !strings.HasPrefix(ui.logs[0], "info: fledge-plugin-hello 0.1.0 speaking fledge-v1 with fledge 0.0.0-test") ||
		!strings.HasPrefix(ui.logs[1], "debug: ") {
		t.Errorf("logs = %q", ui.logs)
	}
	if len(ui.warnings) > 0 {
		t.Errorf("fledge warned: %q", ui.warnings)
	}

	// Without a terminal: every answer is a default, and the store
	// remembers the first run.
	stdout = testutil.SyncBuffer{}
	res, err = env.runner(&scriptedUI{}, false, &stdout, &stderr).Run(context.Background(),
		runner.Request{Command: "hello", Args: []string{"Lin", "1", "0"}, NonInteractive: true})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("non-interactive run = %+v, %v; stderr: %s", res, err, stderr.String())
	}
	matchLines(t, stdout.String(), []string{
		`Hello from a Go plugin, in nest \(go\) on branch master\.`,
		`Hello, Lin! A fine choice: the raven\.`,
		`store: last time you were Ada\.`,
		`store: saved "Lin" and read it back\.`,
		`exec: .*`,
		`metadata: .*`,
		`Done: every fledge-v1 message type, from Go\.`,
	})
	data, err := os.ReadFile(env.paths.StoreFile("fledge-plugin-hello"))
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal(data, &stored); err != nil || stored[keyLastName] != "Lin" {
		t.Errorf("store file = %s (%v), want last_name Lin", data, err)
	}
}

func TestThroughRunnerNothingGranted(t *testing.T) {
	t.Parallel()
	env := newFledgeEnv(t, manifest.Capabilities{})
	var stdout, stderr testutil.SyncBuffer
	res, err := env.runner(&scriptedUI{}, false, &stdout, &stderr).Run(context.Background(),
		runner.Request{Command: "hello", Args: []string{"", "0"}, Capture: true})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run = %+v, %v; stderr: %s", res, err, stderr.String())
	}
	matchLines(t, res.Output, []string{
		`Hello from a Go plugin, in nest \(go\) on branch master\.`,
		`Hello, world! A fine choice: the raven\.`,
		`store: nothing stored \(store not granted\)\.`,
		`exec: not granted \(code 126\)\.`,
		`metadata: not granted \(empty answer\)\.`,
		`Done: every fledge-v1 message type, from Go\.`,
	})
	if got := manifest.JoinCapabilities(res.Denied); !strings.Contains(got, "exec") || !strings.Contains(got, "store") || !strings.Contains(got, "metadata") {
		t.Errorf("denied = %q, want exec, store and metadata", got)
	}
	if _, err := os.Stat(env.paths.StoreFile("fledge-plugin-hello")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a store file exists without the store grant: %v", err)
	}
}

// Ctrl+C during the progress bar: fledge sends cancel, the plugin clears
// its bar and exits 130 long before fledge would signal it.
func TestThroughRunnerInterrupted(t *testing.T) {
	t.Parallel()
	env := newFledgeEnv(t, everything)
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	ui := &scriptedUI{onProgress: func(p runner.Progress) {
		if p.Determinate {
			interrupt()
		}
	}}
	var stdout, stderr testutil.SyncBuffer
	res, err := env.runner(ui, false, &stdout, &stderr).Run(ctx,
		runner.Request{Command: "hello", Args: []string{"", "50", "5000"}})
	if runner.CodeOf(err) != runner.CodeInterrupted {
		t.Fatalf("error = %v (code %q), want interrupted", err, runner.CodeOf(err))
	}
	if res.ExitCode != 130 || res.Signaled {
		t.Fatalf("result = %+v: want the plugin to exit 130 on its own", res)
	}
	if last := ui.progress[len(ui.progress)-1]; !last.Done {
		t.Errorf("last progress update %+v, want done", last)
	}
	if strings.Contains(stdout.String(), "Done:") {
		t.Errorf("plugin went on after the interrupt:\n%s", stdout.String())
	}
}

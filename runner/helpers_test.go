package runner

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/wasmhost"
)

// testWasm is the tests' wasm engine with the limits given: package
// runner/wasmengine's Engine, which imports this package and so is handed
// in by an external test file (wasmengine_test.go) through UseTestWasm.
var testWasm func(wasmhost.Limits) WasmEngine

// UseTestWasm sets testWasm.
func UseTestWasm(engine func(wasmhost.Limits) WasmEngine) { testWasm = engine }

// goPlugin is the Go test plugin, built once by TestMain.
var goPlugin string

func TestMain(m *testing.M) {
	// The tests wait on plugin processes far more than they compute.
	if err := testutil.WaitingTests(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// A fuzz worker (every one runs TestMain) runs only its fuzz target,
	// which needs none of the plugins built below: building them there
	// used up -fuzztime before the first input ran.
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "fledge-runner-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goPlugin = filepath.Join(dir, "goplugin")
	// The compiled modules are kept between runs: compiling the two Go-built
	// ones is most of this function's time.
	if c, ok := testutil.CacheDir("wasm"); ok {
		wasmCache = c
	} else {
		wasmCache = filepath.Join(dir, "wasm-cache")
	}
	// Compiling the two wasm modules, when they are not in wasmCache yet,
	// is most of this: each on its own CPU.
	builds := []struct {
		what  string
		build func(dir string) error
	}{
		{"the Go test plugin", func(dir string) error { return testutil.BuildGo(goPlugin, "./testdata/goplugin") }},
		{"the wasm test plugin", buildWasmDriver},
		{"the SDK test plugin", buildSDKPlugin},
	}
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, b := range builds {
		wg.Go(func() { errs[i] = b.build(dir) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", builds[i].what, err)
			os.Exit(1)
		}
	}
	scratchDone := testutil.Scratch()
	code := m.Run()
	scratchDone()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testEnv is a FLEDGE_HOME, a project directory to run in, and captured
// streams.
type testEnv struct {
	t       testing.TB
	paths   home.Paths
	dir     string
	project string
	stdout  *testutil.SyncBuffer
	stderr  *testutil.SyncBuffer
	ui      *scriptUI
	environ []string
}

func newEnv(t testing.TB) *testEnv {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	paths, err := home.New(filepath.Join(dir, "fledge"))
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(dir, "work", "myproj")
	mustMkdir(t, proj)
	writeFile(t, filepath.Join(proj, "go.mod"), "module example.com/myproj\n", 0o644)
	writeFile(t, filepath.Join(proj, "fledge.toml"), "[project]\nname = \"myproj\"\n", 0o644)
	e := &testEnv{
		t: t, paths: paths, dir: dir, project: proj,
		stdout: &testutil.SyncBuffer{}, stderr: &testutil.SyncBuffer{},
		environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "home"), "LANG=C"},
	}
	e.ui = &scriptUI{w: e.stderr}
	return e
}

func mustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, data string, mode os.FileMode) {
	t.Helper()
	testutil.WriteFile(t, path, []byte(data), mode)
}

// plugin describes a plugin to install straight into FLEDGE_HOME.
type plugin struct {
	name     string
	protocol string // "" or "fledge-v1"
	commands map[string]string
	files    map[string]string // path → content (a "#!" file is executable)
	copies   map[string]string // path in plugin → file to copy (executable)
	grants   manifest.Capabilities
	requests manifest.Capabilities
	manifest string // overrides the generated plugin.toml
}

// install writes the plugin's tree and its plugins.toml entry, as install
// would leave them.
func (e *testEnv) install(p plugin) string {
	e.t.Helper()
	dir := e.paths.PluginDir(p.name)
	mustMkdir(e.t, dir)
	m := p.manifest
	if m == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "[plugin]\nname = %q\nversion = \"1.2.3\"\n", p.name)
		if p.protocol != "" {
			fmt.Fprintf(&b, "protocol = %q\n", p.protocol)
		}
		for c, bin := range p.commands {
			fmt.Fprintf(&b, "\n[[commands]]\nname = %q\nbinary = %q\n", c, bin)
		}
		fmt.Fprintf(&b, "\n[capabilities]\nexec = %v\nstore = %v\nmetadata = %v\n", p.requests.Exec, p.requests.Store, p.requests.Metadata)
		m = b.String()
	}
	writeFile(e.t, filepath.Join(dir, manifest.FileName), m, 0o644)
	for path, content := range p.files {
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		writeFile(e.t, filepath.Join(dir, path), content, mode)
	}
	for path, src := range p.copies {
		data, err := os.ReadFile(src)
		if err != nil {
			e.t.Fatal(err)
		}
		writeFile(e.t, filepath.Join(dir, path), string(data), 0o755)
	}
	cmds := []string{}
	for c := range p.commands {
		cmds = append(cmds, c)
	}
	err := lockfile.NewStore(e.paths.PluginsFile(), e.paths.PluginsLock()).Update(func(f *lockfile.File) error {
		f.Put(lockfile.Plugin{
			Name: p.name, Source: "/src/" + p.name, Version: "1.2.3", Installed: "2026-01-01",
			Commands: cmds, Capabilities: p.grants, Kind: lockfile.KindLocalCopy, Protocol: p.protocol,
		})
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// installGo installs the Go test plugin as command cmd.
func (e *testEnv) installGo(name, cmd string, grants manifest.Capabilities) string {
	return e.install(plugin{
		name: name, protocol: "fledge-v1", commands: map[string]string{cmd: "bin/goplugin"},
		copies: map[string]string{"bin/goplugin": goPlugin}, grants: grants, requests: grants,
	})
}

// installScript installs a testdata/plugins script as command cmd.
func (e *testEnv) installScript(name, cmd, script, protocol string, grants manifest.Capabilities) string {
	return e.install(plugin{
		name: name, protocol: protocol, commands: map[string]string{cmd: "bin/" + script},
		copies: map[string]string{"bin/" + script: filepath.Join("testdata", "plugins", script)}, grants: grants, requests: grants,
	})
}

func (e *testEnv) runner() *Runner {
	return &Runner{
		Paths: e.paths, Version: "9.9.9-test", UI: e.ui,
		Stdout: e.stdout, Stderr: e.stderr,
		Environ:  func() []string { return e.environ },
		Getwd:    func() (string, error) { return e.project, nil },
		UserHome: filepath.Join(e.dir, "home"),
		Wasm:     testWasm(wasmhost.Limits{}),
		Timeouts: Timeouts{Interrupt: 100 * time.Millisecond, Term: 300 * time.Millisecond, Kill: 600 * time.Millisecond,
			TimeoutTerm: 300 * time.Millisecond, TimeoutKill: 600 * time.Millisecond, ExitGrace: 100 * time.Millisecond},
	}
}

func (e *testEnv) run(req Request) (*Result, error) {
	e.t.Helper()
	return e.runWith(e.runner(), req)
}

// patient is the runner for a plugin expected to stop on its own: every
// signal of the stop schedules is an hour away, so however slowly a busy
// machine runs the plugin, no signal overtakes what it does itself.
func (e *testEnv) patient() *Runner {
	r := e.runner()
	r.Timeouts.Interrupt, r.Timeouts.Term, r.Timeouts.Kill = time.Hour, time.Hour, time.Hour
	r.Timeouts.TimeoutTerm, r.Timeouts.TimeoutKill = time.Hour, time.Hour
	return r
}

// runWith runs req with r. A run still going after testutil.WaitLimit
// fails the test and is killed (Request.Kill): a hang is reported, not
// waited out.
func (e *testEnv) runWith(r *Runner, req Request) (*Result, error) {
	e.t.Helper()
	return runBounded(e.t, r, context.Background(), req)
}

// runBounded runs req with r under ctx, as runWith does.
func runBounded(t testing.TB, r *Runner, ctx context.Context, req Request) (*Result, error) {
	t.Helper()
	kill := make(chan struct{})
	var killOnce sync.Once
	killNow := func() { killOnce.Do(func() { close(kill) }) }
	type ended struct {
		res *Result
		err error
	}
	done := make(chan ended, 1)
	if theirs := req.Kill; theirs != nil {
		// Both the caller's kill and the bound's end the run.
		go func() {
			select {
			case <-theirs:
				killNow()
			case <-kill:
			}
		}()
	}
	req.Kill = kill
	go func() {
		res, err := r.Run(ctx, req)
		done <- ended{res, err}
	}()
	limit := time.NewTimer(testutil.WaitLimit)
	defer limit.Stop()
	defer killNow() // ends the forwarding goroutine; the run is over
	select {
	case e := <-done:
		return e.res, e.err
	case <-limit.C:
		killNow()
		t.Fatalf("the run of %s %q did not end within %v: killed", req.Command, req.Args, testutil.WaitLimit)
		return nil, nil
	}
}

// scriptUI answers questions from a script and records everything shown.
type scriptUI struct {
	mu       sync.Mutex
	w        io.Writer
	answers  []any // string, bool, int, []int, error, or block (wait for ctx)
	asked    []string
	shown    []string // each question's default or options, as shown
	logs     []string
	warns    []string
	progress []Progress
	pauses   int
}

type block struct{}

// wasAsked says whether a question has been asked.
func (u *scriptUI) wasAsked() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.asked) > 0
}

func (u *scriptUI) next(kind string, q Question) (any, error) {
	u.mu.Lock()
	u.asked = append(u.asked, kind+":"+q.Message)
	if len(u.answers) == 0 {
		u.mu.Unlock()
		return nil, fmt.Errorf("unexpected question %q", q.Message)
	}
	a := u.answers[0]
	u.answers = u.answers[1:]
	u.mu.Unlock()
	if err, ok := a.(error); ok {
		return nil, err
	}
	return a, nil
}

func (u *scriptUI) wait(ctx context.Context, a any) (any, error) {
	if _, ok := a.(block); ok {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return a, nil
}

func (u *scriptUI) show(s string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.shown = append(u.shown, s)
}

func (u *scriptUI) Prompt(ctx context.Context, q Question) (string, error) {
	u.show(q.Default)
	a, err := u.next("prompt", q)
	if err != nil {
		return "", err
	}
	if a, err = u.wait(ctx, a); err != nil {
		return "", err
	}
	if q.Validate != nil {
		if err := q.Validate(a.(string)); err != nil {
			return "", err
		}
	}
	return a.(string), nil
}

func (u *scriptUI) Confirm(ctx context.Context, q Question, def bool) (bool, error) {
	a, err := u.next("confirm", q)
	if err != nil {
		return false, err
	}
	if a, err = u.wait(ctx, a); err != nil {
		return false, err
	}
	return a.(bool), nil
}

func (u *scriptUI) Select(ctx context.Context, q Question, options []string, def int) (int, error) {
	u.show(strings.Join(options, "|"))
	a, err := u.next("select", q)
	if err != nil {
		return 0, err
	}
	if a, err = u.wait(ctx, a); err != nil {
		return 0, err
	}
	return a.(int), nil
}

func (u *scriptUI) MultiSelect(ctx context.Context, q Question, options []string, defaults []int) ([]int, error) {
	u.show(strings.Join(options, "|"))
	a, err := u.next("multi_select", q)
	if err != nil {
		return nil, err
	}
	if a, err = u.wait(ctx, a); err != nil {
		return nil, err
	}
	return a.([]int), nil
}

func (u *scriptUI) Progress(p Progress) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.progress = append(u.progress, p)
}

func (u *scriptUI) Pause() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.pauses++
}

func (u *scriptUI) Log(plugin string, level Level, message string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.logs = append(u.logs, fmt.Sprintf("%s %s %s", plugin, level, message))
	fmt.Fprint(u.w, FormatLog(plugin, level, message))
}

func (u *scriptUI) Warn(plugin, message string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.warns = append(u.warns, message)
	fmt.Fprintf(u.w, "fledge: %s: %s\n", plugin, message)
}

func (u *scriptUI) warnings() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return strings.Join(u.warns, "\n")
}

// decodeOutput parses the Go plugin's echo output.
func decodeEcho(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("echo output is not JSON: %v\n%s", err, out)
	}
	return m
}

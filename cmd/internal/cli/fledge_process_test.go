//go:build unix

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// hardTimeout bounds every fledge process: a hang is a failure, not a stuck
// test run.
const hardTimeout = testutil.WaitLimit

// hEnv is one machine: a FLEDGE_HOME, a directory of "GitHub" repos served
// as file:// URLs, and a work directory for local plugins.
type hEnv struct {
	t    *testing.T
	work string
	fh   string
	gh   string
	bin  string
	// confined leaves kernel confinement on (see environ).
	confined bool
	// extra is added to every fledge process's environment.
	extra []string
}

func newHEnv(t *testing.T) *hEnv {
	t.Helper()
	work := t.TempDir()
	e := &hEnv{t: t, work: work, fh: filepath.Join(work, "fh"), gh: filepath.Join(work, "gh"), bin: buildFledge(t)}
	for _, d := range []string{e.gh, filepath.Join(work, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// withHome returns a second machine sharing e's repos and work directory.
func (e *hEnv) withHome(name string) *hEnv {
	c := *e
	c.fh = filepath.Join(e.work, name)
	return &c
}

func (e *hEnv) environ() []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(e.work, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(e.work, "home", ".config"),
		"FLEDGE_HOME=" + e.fh,
		"NO_COLOR=1",
		// These tests crash fledge from its own hooks (kill -9 $PPID),
		// which a confined hook cannot do: Landlock keeps its signals
		// inside the sandbox.
		"FLEDGE_CONFINE=" + map[bool]string{false: "off", true: "on"}[e.confined],
		"FLEDGE_GITHUB_URL=file://" + e.gh,
		"FLEDGE_GITHUB_API=http://127.0.0.1:1",
		"FLEDGE_REGISTRY_URL=http://127.0.0.1:1/index.json",
		"WORK=" + e.work,
		"TMPDIR=" + os.TempDir(),
	}, e.extra...)
}

type hRes struct {
	args     []string
	out, err []byte
	code     int
	// signal is set when the process was killed by one.
	signal syscall.Signal
	took   time.Duration
}

func (r hRes) String() string {
	return fmt.Sprintf("fledge %s: exit %d (signal %v)\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.signal, r.out, r.err)
}

// command prepares fledge with args; name replaces the binary (for a shell
// wrapper) when not empty.
func (e *hEnv) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Env = e.environ()
	cmd.Dir = e.work
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func (e *hEnv) exec(cmd *exec.Cmd, args []string) hRes {
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	err := cmd.Run()
	r := hRes{args: args, out: out.Bytes(), err: stderr.Bytes(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = ws.Signal()
		}
	default:
		e.t.Fatalf("fledge %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// run runs fledge to completion (bounded by hardTimeout).
func (e *hEnv) run(args ...string) hRes {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hardTimeout)
	defer cancel()
	r := e.exec(e.command(ctx, args...), args)
	if ctx.Err() != nil {
		e.t.Fatalf("hung: killed after %v\n%v", hardTimeout, r)
	}
	return r
}

// ok runs fledge and fails the test unless it exits 0.
func (e *hEnv) ok(args ...string) hRes {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 || r.signal != 0 {
		e.t.Fatalf("want success\n%v", r)
	}
	return r
}

// fail runs fledge --json and fails the test unless it exits 1 with the
// error code want; it returns the parsed document.
func (e *hEnv) fail(want string, args ...string) map[string]any {
	e.t.Helper()
	r := e.run(append(args, "--json")...)
	if r.code != 1 {
		e.t.Fatalf("want exit 1 with %s\n%v", want, r)
	}
	doc := hJSON(e.t, r)
	if got := hStr(doc, "error", "code"); got != want {
		e.t.Fatalf("error code %q, want %q\n%v", got, want, r)
	}
	return doc
}

// hJSON decodes stdout, which must be exactly one JSON object.
func hJSON(t *testing.T, r hRes) map[string]any {
	t.Helper()
	v, err := decodeOneJSON(string(r.out))
	if err != nil {
		t.Fatalf("%v\n%v", err, r)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object\n%v", r)
	}
	return m
}

// hGet walks objects by key and arrays by int index.
func hGet(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func hStr(v any, path ...any) string {
	s, _ := hGet(v, path...).(string)
	return s
}

func hStrings(v any, path ...any) []string {
	a, _ := hGet(v, path...).([]any)
	out := []string{}
	for _, x := range a {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// hByName picks the element of the array at path whose "name" is name.
func hByName(v any, name string, path ...any) map[string]any {
	a, _ := hGet(v, path...).([]any)
	for _, x := range a {
		if m, ok := x.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

// hPlugin is a plugin tree: a manifest for name with one command (the short
// name) and its script, plus extra manifest text and files.
func hPlugin(name, version, extra string) map[string]string {
	short := strings.TrimPrefix(name, "fledge-plugin-")
	return map[string]string{
		"plugin.toml":  fmt.Sprintf("[plugin]\nname = %q\nversion = %q\n\n[[commands]]\nname = %q\nbinary = \"bin/%s\"\n%s", name, version, short, short, extra),
		"bin/" + short: "#!/bin/sh\necho " + short + " " + version + "\n",
	}
}

// local makes a local plugin directory work/dir.
func (e *hEnv) local(dir string, files map[string]string) string {
	e.t.Helper()
	p := filepath.Join(e.work, dir)
	testutil.WriteTree(e.t, p, files)
	return p
}

// repo makes gh/o/<name> a git repository holding files, and returns its
// commit.
func (e *hEnv) repo(name string, files map[string]string) string {
	e.t.Helper()
	p := filepath.Join(e.gh, "o", name)
	testutil.WriteTree(e.t, p, files)
	h, err := initRepo(p)
	if err != nil {
		e.t.Fatal(err)
	}
	return h.String()
}

func (e *hEnv) pluginsToml() []byte {
	data, err := os.ReadFile(filepath.Join(e.fh, "plugins.toml"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		e.t.Fatal(err)
	}
	return data
}

// hEntry is the part of a plugins.toml entry the tests compare.
type hEntry struct {
	Name         string            `toml:"name"`
	Version      string            `toml:"version"`
	Commands     []string          `toml:"commands"`
	Kind         string            `toml:"kind"`
	Commit       string            `toml:"commit"`
	SourceHash   string            `toml:"source_hash"`
	TreeHash     string            `toml:"tree_hash"`
	Source       string            `toml:"source"`
	URL          string            `toml:"url"`
	Hooks        map[string]string `toml:"hooks"`
	Capabilities map[string]any    `toml:"capabilities"`
}

// entries parses plugins.toml itself (not through fledge): it must parse.
func (e *hEnv) entries() map[string]hEntry {
	e.t.Helper()
	var f struct {
		Plugins []hEntry `toml:"plugins"`
	}
	if err := toml.Unmarshal(e.pluginsToml(), &f); err != nil {
		e.t.Fatalf("plugins.toml does not parse: %v\n%s", err, e.pluginsToml())
	}
	m := map[string]hEntry{}
	for _, p := range f.Plugins {
		if _, dup := m[p.Name]; dup {
			e.t.Fatalf("plugins.toml lists %s twice", p.Name)
		}
		m[p.Name] = p
	}
	return m
}

func (e *hEnv) names() []string {
	var n []string
	for k := range e.entries() {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// noLeftovers: nothing remains in plugins/.staging or plugins/.trash.
func (e *hEnv) noLeftovers() {
	e.t.Helper()
	for _, d := range []string{".staging", ".trash"} {
		entries, err := os.ReadDir(filepath.Join(e.fh, "plugins", d))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			e.t.Fatal(err)
		}
		if len(entries) > 0 {
			var names []string
			for _, x := range entries {
				names = append(names, x.Name())
			}
			e.t.Errorf("leftovers in plugins/%s: %s", d, strings.Join(names, ", "))
		}
	}
}

// absent: the plugin is fully gone: no entry, no tree, no command link.
func (e *hEnv) absent(name string, commands ...string) {
	e.t.Helper()
	if _, ok := e.entries()[name]; ok {
		e.t.Errorf("%s is still recorded in plugins.toml", name)
	}
	if _, err := os.Lstat(filepath.Join(e.fh, "plugins", name)); err == nil {
		e.t.Errorf("plugins/%s still exists", name)
	}
	for _, c := range commands {
		if _, err := os.Lstat(filepath.Join(e.fh, "bin", "fledge-"+c)); err == nil {
			e.t.Errorf("bin/fledge-%s still exists", c)
		}
	}
}

// verified: the plugin is recorded, its links resolve into its tree, and
// fledge plugins verify says ok.
func (e *hEnv) verified(name string, commands ...string) {
	e.t.Helper()
	if _, ok := e.entries()[name]; !ok {
		e.t.Fatalf("%s is not recorded in plugins.toml:\n%s", name, e.pluginsToml())
	}
	for _, c := range commands {
		target, err := filepath.EvalSymlinks(filepath.Join(e.fh, "bin", "fledge-"+c))
		if err != nil {
			e.t.Errorf("link for %s: %v", c, err)
		} else if !strings.HasPrefix(target, filepath.Join(e.fh, "plugins", name)+string(filepath.Separator)) {
			e.t.Errorf("link for %s points at %s, outside %s", c, target, name)
		}
	}
	r := e.run("plugins", "verify", name, "--json")
	doc := hJSON(e.t, r)
	if st := hStr(doc, "results", 0, "status"); st != "ok" || r.code != 0 {
		e.t.Errorf("verify %s: status %q, exit %d\n%v", name, st, r.code, r)
	}
}

// hNoRaw fails if any of the terminal-hostile runes reach out raw.
func hNoRaw(t *testing.T, what string, out []byte) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e", "\u202d", "\u2066", "\u200b", "\u200d", "\ufeff"} {
		if i := bytes.Index(out, []byte(bad)); i >= 0 {
			lo, hi := max(0, i-40), min(len(out), i+40)
			t.Errorf("%s: raw %q reached the output: %q", what, bad, out[lo:hi])
		}
	}
}

func hJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func openRepoT(t *testing.T, dir string) *git.Repository {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustHead(t *testing.T, r *git.Repository) plumbing.Hash {
	t.Helper()
	h, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	return h.Hash()
}

// runOnTTY runs fledge with its stdout on a pseudo-terminal and returns
// what reached the terminal (bounded) and stderr.
func (e *hEnv) runOnTTY(args ...string) (tty []byte, r hRes) {
	e.t.Helper()
	master, slave, err := hOpenPTY()
	if err != nil {
		e.t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hardTimeout)
	defer cancel()
	cmd := e.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = slave, &stderr
	done := drainPTY(master)
	err = cmd.Run()
	slave.Close()
	r = hRes{args: args, err: stderr.Bytes()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	tty = <-done
	r.out = tty
	return tty, r
}

// drainPTY reads what the terminal's master side shows (up to 1 MiB) until
// it closes, and then sends it.
func drainPTY(master *os.File) <-chan []byte {
	done := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for b.Len() < 1<<20 {
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		done <- b.Bytes()
	}()
	return done
}

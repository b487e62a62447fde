package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"

	"github.com/corvidlabs/fledge-go/manifest"
)

func TestInitAndArgumentPassThrough(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// A live-linked plugin: its directory in FLEDGE_HOME is a symlink.
	src := filepath.Join(e.dir, "src", "goplug")
	mustMkdir(t, filepath.Dir(src))
	e.installGo("fledge-plugin-go", "goecho", manifest.Capabilities{Store: true})
	if err := os.Rename(e.paths.PluginDir("fledge-plugin-go"), src); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, e.paths.PluginDir("fledge-plugin-go")); err != nil {
		t.Fatal(err)
	}
	// The project is a git repository whose remote URL carries a token.
	repo, err := git.PlainInit(e.project, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://user:ghp_secret@example.com/org/app.git?token=x"}}); err != nil {
		t.Fatal(err)
	}
	args := []string{"echo", "--help", "--json", "two words", "", "ünï"}
	res := e.mustRun(Request{Command: "goecho", Args: args, NonInteractive: true})
	if res.ExitCode != 0 || res.Protocol != "fledge-v1" {
		t.Fatalf("result %+v", res)
	}
	m := decodeEcho(t, e.stdout.String())
	init := m["init"].(map[string]any)
	wantArgs := []any{"echo", "--help", "--json", "two words", "", "ünï"}
	if !reflect.DeepEqual(init["args"], wantArgs) || !reflect.DeepEqual(m["argv"], wantArgs) {
		t.Errorf("init args %v, argv %v, want %v", init["args"], m["argv"], wantArgs)
	}
	if m["plugin_dir"] != src || m["ni"] != "1" {
		t.Errorf("FLEDGE_PLUGIN_DIR = %v (want %s), FLEDGE_NON_INTERACTIVE = %v", m["plugin_dir"], src, m["ni"])
	}
	if init["type"] != "init" || init["protocol"] != "fledge-v1" || init["command"] != "goecho" {
		t.Errorf("init header: %v", init)
	}
	wantPlugin := map[string]any{"name": "fledge-plugin-go", "version": "1.2.3", "dir": src}
	if !reflect.DeepEqual(init["plugin"], wantPlugin) {
		t.Errorf("init plugin = %v, want %v", init["plugin"], wantPlugin)
	}
	if !reflect.DeepEqual(init["fledge"], map[string]any{"version": "9.9.9-test"}) {
		t.Errorf("init fledge = %v", init["fledge"])
	}
	if !reflect.DeepEqual(init["capabilities"], map[string]any{"exec": false, "store": true, "metadata": false}) {
		t.Errorf("init capabilities = %v", init["capabilities"])
	}
	proj := init["project"].(map[string]any)
	git := proj["git"].(map[string]any)
	if proj["name"] != "myproj" || proj["root"] != e.project || proj["language"] != "go" {
		t.Errorf("project = %v", proj)
	}
	if git["branch"] != "master" || git["dirty"] != true || git["remote"] != "origin" || git["remote_url"] != "https://example.com/org/app.git" {
		t.Errorf("git = %v", git)
	}
}

func TestExitCodesPassThrough(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	for _, code := range []int{0, 1, 42} {
		res, err := e.run(Request{Command: "go", Args: []string{"exit", itoa(code)}})
		if err != nil || res.ExitCode != code {
			t.Errorf("exit %d: got %d, %v", code, res.ExitCode, err)
		}
	}
	// A plugin that never reads its stdin (not even init).
	res, err := e.run(Request{Command: "go", Args: []string{"no-read", "5"}})
	if err != nil || res.ExitCode != 5 {
		t.Errorf("no-read: exit %d, %v", res.ExitCode, err)
	}
	if !strings.Contains(e.stdout.String(), "did not read\n") {
		t.Errorf("stdout = %q", e.stdout.String())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// interruptAfter runs req and cancels its context (Ctrl+C) once the plugin
// has produced want on stdout.
func interruptAfter(t *testing.T, e *testEnv, r *Runner, req Request, want string) (*Result, error) {
	t.Helper()
	return stopAfter(t, e, r, req, want, context.Canceled)
}

// stopAfter runs req and, once the plugin has produced want on stdout,
// ends its context with cause: context.Canceled is Ctrl+C, errRunTimeout
// what Request.Timeout does when it expires. The run starts its stop
// schedule at an event of the plugin's, not at a time a busy machine may
// reach before the plugin has even started.
func stopAfter(t *testing.T, e *testEnv, r *Runner, req Request, want string, cause error) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		for !strings.Contains(e.stdout.String(), want) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		cancel(cause)
	}()
	return runBounded(t, r, ctx, req)
}

// A plugin that handles the cancel ends the run itself: the patient
// runner sends no signal that could overtake it.
func TestInterruptSendsCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})

	// The Go plugin reads until it sees cancel, then exits 130.
	res, err := interruptAfter(t, e, e.patient(), Request{Command: "go", Args: []string{"wait-cancel"}}, "")
	if CodeOf(err) != CodeInterrupted || res.ExitCode != 130 || res.Signaled {
		t.Fatalf("err %v, exit %d (signaled %v): want interrupted, the plugin's own exit 130", err, res.ExitCode, res.Signaled)
	}
	if !strings.Contains(e.stdout.String(), "cancelled: user_interrupt\n") {
		t.Errorf("stdout = %q", e.stdout.String())
	}
}

func TestStubbornPluginIsKilled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	r := e.runner()
	res, err := interruptAfter(t, e, r, Request{Command: "go", Args: []string{"ignore-term"}}, "stubborn")
	if CodeOf(err) != CodeInterrupted {
		t.Fatalf("err = %v", err)
	}
	if !res.Signaled || res.ExitCode != 128+9 {
		t.Errorf("exit %d signaled %v, want SIGKILL (137)", res.ExitCode, res.Signaled)
	}
}

// Request.Timeout ends the run, not before it expires, as a timeout. The
// plugins here stop at the first thing fledge sends them, whenever a busy
// machine gets round to running them: no signal is due before the one
// that stops them.
func TestRunTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	const timeout = 200 * time.Millisecond
	start := time.Now()
	res, err := e.runWith(e.patient(), Request{Command: "go", Args: []string{"wait-cancel"}, Timeout: timeout})
	if took := time.Since(start); took < timeout {
		t.Errorf("the run ended after %v, before its %v timeout", took, timeout)
	}
	if CodeOf(err) != CodeTimeout || !strings.Contains(err.Error(), "timed out after 200ms") {
		t.Fatalf("err = %v, want a timeout after 200ms", err)
	}
	if res.ExitCode != 130 || res.Signaled || !strings.Contains(e.stdout.String(), "cancelled: timeout\n") {
		t.Errorf("exit %d (signaled %v) stdout %q, want the plugin's own 130 after a cancel, reason timeout", res.ExitCode, res.Signaled, e.stdout.String())
	}
	// A plugin that ignores the cancel gets SIGINT, which ends a Go
	// program; SIGTERM and SIGKILL are an hour away.
	r := e.patient()
	r.Timeouts.Interrupt = 100 * time.Millisecond
	res, err = e.runWith(r, Request{Command: "go", Args: []string{"sleep", "60"}, Timeout: 100 * time.Millisecond})
	if CodeOf(err) != CodeTimeout || res.ExitCode != 128+2 || !res.Signaled {
		t.Errorf("sleep: err %v exit %d, want timeout and SIGINT (130)", err, res.ExitCode)
	}
}

func TestGrandchildHoldingStdoutDoesNotHang(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	// The grandchild sleeps 30 s with the plugin's stdout; the run must
	// end long before (the test's context would report it as interrupted).
	res, err := e.run(Request{Command: "go", Args: []string{"grandchild"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("err %v exit %d", err, res.ExitCode)
	}
	if e.stdout.String() != "parent done\n" {
		t.Errorf("stdout = %q", e.stdout.String())
	}
}

func TestLineTooLong(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	r := e.runner()
	r.Limits.Line = 64 << 10
	res, err := e.runWith(r, Request{Command: "go", Args: []string{"longline", "200000"}})
	if CodeOf(err) != CodeMalformedResponse || !strings.Contains(err.Error(), "longer than 65536 bytes") {
		t.Fatalf("err = %v", err)
	}
	if e.stdout.String() != "" || !res.Started {
		t.Errorf("stdout %q started %v", e.stdout.String(), res.Started)
	}
}

func TestPluginThatDoesNotReadResponses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{Store: true})
	r := e.runner()
	r.Limits.Backlog = 256 << 10
	res, err := e.runWith(r, Request{Command: "go", Args: []string{"unread", "100000"}})
	if CodeOf(err) != CodeMalformedResponse || !strings.Contains(err.Error(), "stopped reading its stdin") {
		t.Fatalf("err = %v", err)
	}
	if !res.Signaled {
		t.Errorf("the plugin was not killed: exit %d", res.ExitCode)
	}
}

func TestLargeAnswerIsNotABacklog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{Exec: true})
	r := e.runner()
	r.Limits.Backlog = 64 << 10
	res, err := e.runWith(r, Request{Command: "go", Args: []string{"exec", "head -c 500000 /dev/zero | tr '\\0' a"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("err %v exit %d", err, res.ExitCode)
	}
	if out := e.stdout.String(); !strings.Contains(out, strings.Repeat("a", 500000)) {
		t.Errorf("the plugin did not get the whole answer (%d bytes of output)", len(out))
	}
}

func TestOutputFlood(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	const n, size = 100000, 100
	res := e.mustRun(Request{Command: "go", Args: []string{"flood", itoa(n), itoa(size)}})
	if res.ExitCode != 0 {
		t.Fatal(res.ExitCode)
	}
	out := e.stdout.String()
	if len(out) != n*size || strings.Count(out, "\n") != n {
		t.Errorf("stdout: %d bytes, %d lines; want %d, %d", len(out), strings.Count(out, "\n"), n*size, n)
	}
	// Captured for --json, the output is capped and says so.
	e2 := newEnv(t)
	e2.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	r := e2.runner()
	r.Limits.Capture = 1 << 20
	res, err := e2.runWith(r, Request{Command: "go", Args: []string{"flood", itoa(n), itoa(size)}, Capture: true})
	if err != nil || !res.OutputTruncated || len(res.Output) > 1<<20+200 || !strings.Contains(res.Output, "output truncated") {
		t.Errorf("capture: err %v truncated %v len %d", err, res.OutputTruncated, len(res.Output))
	}
}

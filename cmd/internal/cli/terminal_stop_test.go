//go:build unix

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

// These tests press Ctrl+C (once, twice) and let --timeout expire on real
// plugins in a real terminal (tmux), and check that the terminal is left as
// it was found: the same stty settings and a visible cursor.

// stubbornPlugin is the runner's test plugin that ignores cancel (see the
// comment at its top).
var stubbornPlugin = filepath.Join("..", "..", "..", "runner", "testdata", "plugins", "stubborn.sh")

// askThenIgnore asks a question, then ignores everything but SIGKILL
// without reading the answer.
const askThenIgnore = `#!/bin/sh
IFS= read -r init
d=$FLEDGE_PLUGIN_DIR
echo $$ > "$d/pid"
trap 'echo INT >> "$d/signals"' INT
trap 'echo TERM >> "$d/signals"' TERM
printf '%s\n' '{"type":"prompt","id":"1","message":"Your name?"}'
` + untilTheTestEnds

// nativeIgnorer runs without the protocol, records each SIGINT it gets
// from the terminal and carries on.
const nativeIgnorer = `#!/bin/sh
d=$FLEDGE_PLUGIN_DIR
echo $$ > "$d/pid"
trap 'echo INT >> "$d/signals"' INT
echo ready
` + untilTheTestEnds

// untilTheTestEnds loops while the test that installed the plugin lives
// (its pid is the file lifeline, as in stubborn.sh): fledge runs in a tmux
// server that a killed test leaves behind, and its plugins would loop
// there for ever. /proc where there is one: a confined plugin may not
// signal outside itself.
const untilTheTestEnds = `life=$(cat "$d/lifeline" 2>/dev/null) || life=$PPID
alive() { if [ -d /proc/self ]; then [ -d "/proc/$1" ]; else kill -0 "$1" 2>/dev/null; fi; }
while alive "$life"; do sleep 1; done
`

// termRun is fledge running in a tmux pane, with the terminal's settings
// saved before and after it (stty -g) and its exit code recorded.
type termRun struct {
	*tmuxSession
	dir string
}

func startInTerminal(t *testing.T, bin string, env map[string]string, args string) *termRun {
	t.Helper()
	dir := t.TempDir()
	var envs []string
	for k, v := range env {
		envs = append(envs, shellQuote(k+"="+v))
	}
	q := func(name string) string { return shellQuote(filepath.Join(dir, name)) }
	// fledge's pid goes to the file fledge.pid (sh execs it).
	cmd := fmt.Sprintf("stty -g > %s; sh -c 'echo $$ > %s; exec \"$@\"' sh env %s %s %s; echo $? > %s; stty -g > %s; mv %s %s; sleep 60",
		q("before"), filepath.Join(dir, "fledge.pid"), strings.Join(envs, " "), shellQuote(bin), args, q("rc.tmp"), q("after"), q("rc.tmp"), q("rc"))
	return &termRun{tmuxSession: startTmux(t, cmd), dir: dir}
}

// exitCode waits for fledge to exit and returns its code.
func (r *termRun) exitCode() int {
	r.t.Helper()
	data := waitFile(r.t, filepath.Join(r.dir, "rc"), "\n")
	code, err := strconv.Atoi(strings.TrimSpace(data))
	if err != nil {
		r.t.Fatalf("exit code %q", data)
	}
	return code
}

// cursorVisible reports whether the pane shows its cursor.
func (r *termRun) cursorVisible() bool {
	r.t.Helper()
	out, err := exec.Command("tmux", "-S", r.name, "display", "-p", "-t", "0", "#{cursor_flag}").Output()
	if err != nil {
		r.t.Fatalf("tmux display: %v", err)
	}
	return strings.TrimSpace(string(out)) == "1"
}

// restored checks, once fledge has exited, that the terminal is as it was.
func (r *termRun) restored() {
	r.t.Helper()
	before, _ := os.ReadFile(filepath.Join(r.dir, "before"))
	after, _ := os.ReadFile(filepath.Join(r.dir, "after"))
	if len(before) == 0 || string(before) != string(after) {
		r.t.Errorf("the terminal's settings changed: stty -g %q before, %q after", before, after)
	}
	if !r.cursorVisible() {
		r.t.Errorf("the cursor is hidden after fledge exited; screen:\n%s", r.pane())
	}
}

// pluginGone checks that the process whose pid the plugin recorded in dir
// no longer exists.
func pluginGone(t *testing.T, dir string) {
	t.Helper()
	data := waitFile(t, filepath.Join(dir, "pid"), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(data))
	if err != nil {
		t.Fatalf("pid %q", data)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("the plugin (pid %d) is still there after fledge exited (%v)", pid, err)
	}
}

func signalsIn(dir string) string {
	data, _ := os.ReadFile(filepath.Join(dir, "signals"))
	return string(data)
}

const userCancel = `{"type":"cancel","reason":"user_interrupt"}`

func installStoppers(t *testing.T) *runFixture {
	f := newRunFixture(t)
	delete(f.env, "NO_COLOR")
	script, err := os.ReadFile(stubbornPlugin)
	if err != nil {
		t.Fatal(err)
	}
	// Each lives only while this test does (untilTheTestEnds).
	life := strconv.Itoa(os.Getpid()) + "\n"
	f.install("fledge-plugin-stub", "fledge-v1", map[string]string{"stub": "bin/stub"}, map[string]string{"bin/stub": string(script), "lifeline": life}, manifest.Capabilities{})
	f.install("fledge-plugin-asker", "fledge-v1", map[string]string{"asker": "bin/asker"}, map[string]string{"bin/asker": askThenIgnore, "lifeline": life}, manifest.Capabilities{})
	f.install("fledge-plugin-nat", "", map[string]string{"nat": "bin/nat"}, map[string]string{"bin/nat": nativeIgnorer, "lifeline": life}, manifest.Capabilities{})
	return f
}

func TestTerminalCtrlCStopsAPlugin(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)

	t.Run("once: a plugin ignoring cancel gets SIGINT", func(t *testing.T) {
		t.Parallel()
		f := installStoppers(t)
		dir := f.paths.PluginDir("fledge-plugin-stub")
		r := startInTerminal(t, bin, f.env, "stub int")
		r.waitFor("ready")
		r.waitFor("25% 1/4")
		if r.cursorVisible() {
			t.Errorf("the cursor shows over the progress bar")
		}
		r.keys("C-c")
		if rc := r.exitCode(); rc != 130 {
			t.Errorf("exit %d, want 130 whatever the plugin exited with (7); screen:\n%s", rc, r.pane())
		}
		if got := signalsIn(dir); got != "INT "+userCancel+"\n" {
			t.Errorf("the plugin got %q, want SIGINT, after the cancel", got)
		}
		pluginGone(t, dir)
		r.restored()
	})

	t.Run("twice: a plugin ignoring everything is killed at once", func(t *testing.T) {
		t.Parallel()
		f := installStoppers(t)
		dir := f.paths.PluginDir("fledge-plugin-stub")
		r := startInTerminal(t, bin, f.env, "stub none")
		r.waitFor("ready")
		r.keys("C-c")
		// Said at once, not after the seconds the plugin is given.
		r.waitFor("stopping stub: Ctrl+C again kills it now")
		waitFile(t, filepath.Join(dir, "signals"), "INT")
		r.keys("C-c")
		if rc := r.exitCode(); rc != 130 {
			t.Errorf("exit %d, want 130; screen:\n%s", rc, r.pane())
		}
		// SIGTERM would have come 5 s after the first Ctrl+C, had the
		// schedule rather than the second Ctrl+C ended the plugin.
		if got := signalsIn(dir); got != "INT "+userCancel+"\n" {
			t.Errorf("the plugin got %q, want SIGINT alone before the kill", got)
		}
		pluginGone(t, dir)
		r.restored()
	})

	t.Run("Ctrl+C in a question counts as the first", func(t *testing.T) {
		t.Parallel()
		f := installStoppers(t)
		dir := f.paths.PluginDir("fledge-plugin-asker")
		r := startInTerminal(t, bin, f.env, "asker")
		r.waitFor("Your name?")
		r.keys("C-c") // a key to the question (raw mode), not a signal
		r.waitFor("stopping asker: Ctrl+C again kills it now")
		waitFile(t, filepath.Join(dir, "signals"), "INT")
		r.keys("C-c")
		if rc := r.exitCode(); rc != 130 {
			t.Errorf("exit %d, want 130; screen:\n%s", rc, r.pane())
		}
		if got := signalsIn(dir); got != "INT\n" {
			t.Errorf("the plugin got %q, want SIGINT alone before the kill", got)
		}
		pluginGone(t, dir)
		r.restored()
	})

	t.Run("Esc in a question abandons it as Ctrl+C does", func(t *testing.T) {
		t.Parallel()
		f := installStoppers(t)
		dir := f.paths.PluginDir("fledge-plugin-asker")
		r := startInTerminal(t, bin, f.env, "asker")
		r.waitFor("Your name?")
		r.keys("Escape")
		waitFile(t, filepath.Join(dir, "signals"), "INT")
		r.keys("C-c")
		if rc := r.exitCode(); rc != 130 {
			t.Errorf("exit %d, want 130; screen:\n%s", rc, r.pane())
		}
		if got := signalsIn(dir); got != "INT\n" {
			t.Errorf("the plugin got %q, want the same cancel as Ctrl+C", got)
		}
		pluginGone(t, dir)
		r.restored()
	})

	t.Run("ACCESSIBLE=1: Ctrl+C at a question needs no Enter", func(t *testing.T) {
		t.Parallel()
		f := installStoppers(t)
		f.env["ACCESSIBLE"] = "1"
		dir := f.paths.PluginDir("fledge-plugin-asker")
		r := startInTerminal(t, bin, f.env, "asker")
		r.waitFor("Your name?")
		r.keys("C-c") // a signal here: the accessible mode reads lines
		waitFile(t, filepath.Join(dir, "signals"), "INT")
		r.waitFor("stopping asker: Ctrl+C again kills it now") // counted (see "nat")
		r.keys("C-c")
		if rc := r.exitCode(); rc != 130 {
			t.Errorf("exit %d, want 130; screen:\n%s", rc, r.pane())
		}
		pluginGone(t, dir)
		r.restored()
	})

	t.Run("a plugin without the protocol gets Ctrl+C itself; twice kills it", func(t *testing.T) {
		t.Parallel()
		f := installStoppers(t)
		dir := f.paths.PluginDir("fledge-plugin-nat")
		r := startInTerminal(t, bin, f.env, "nat")
		r.waitFor("ready")
		r.keys("C-c")
		waitFile(t, filepath.Join(dir, "signals"), "INT")
		// fledge has counted the first: a second SIGINT sent before Go's
		// signal loop took the first would be merged into it (the
		// runtime keeps one pending signal of a kind), as a kernel does.
		r.waitFor("stopping nat: Ctrl+C again kills it now")
		r.keys("C-c")
		if rc := r.exitCode(); rc != 130 {
			t.Errorf("exit %d, want 130; screen:\n%s", rc, r.pane())
		}
		if got := signalsIn(dir); !strings.HasPrefix(got, "INT\n") || strings.Contains(got, "TERM") {
			t.Errorf("the plugin got %q, want the terminal's SIGINT", got)
		}
		pluginGone(t, dir)
		r.restored()
	})
}

// The timeouts are seconds: the plugin must have set its traps, and a
// question must be on screen for the test to see, before one expires on a
// busy machine. fledge's own schedule after a timeout (SIGTERM at 2 s,
// SIGKILL at 3 s) leaves the plugin a second to record SIGTERM.
func TestTerminalTimeout(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)

	t.Run("a plugin ignoring SIGTERM too is killed after the grace", func(t *testing.T) {
		t.Parallel()
		f := installStoppers(t)
		dir := f.paths.PluginDir("fledge-plugin-stub")
		r := startInTerminal(t, bin, f.env, "plugins run stub --timeout 3s none")
		r.waitFor("ready")
		if rc := r.exitCode(); rc != 1 {
			t.Errorf("exit %d, want 1; screen:\n%s", rc, r.pane())
		}
		if s := r.pane(); !strings.Contains(s, "stub timed out after 3s") {
			t.Errorf("no timeout error on screen:\n%s", s)
		}
		if got, want := signalsIn(dir), "INT {\"type\":\"cancel\",\"reason\":\"timeout\"}\nTERM\n"; got != want {
			t.Errorf("the plugin got %q, want %q", got, want)
		}
		pluginGone(t, dir)
		r.restored()
	})

	t.Run("--json: the error is timeout", func(t *testing.T) {
		t.Parallel()
		f := installStoppers(t)
		out := filepath.Join(t.TempDir(), "out.json")
		r := startInTerminal(t, bin, f.env, "plugins run --json stub --timeout 1s none > "+shellQuote(out))
		if rc := r.exitCode(); rc != 1 {
			t.Errorf("exit %d, want 1; screen:\n%s", rc, r.pane())
		}
		var doc runResultDoc
		data, _ := os.ReadFile(out)
		if err := json.Unmarshal(data, &doc); err != nil || doc.Error == nil || doc.Error.Code != "timeout" || doc.Success {
			t.Errorf("want error timeout: %v\n%s", err, data)
		}
		pluginGone(t, f.paths.PluginDir("fledge-plugin-stub"))
		r.restored()
	})

	t.Run("a question on screen is withdrawn", func(t *testing.T) {
		t.Parallel()
		f, answers := installAsk(t)
		delete(f.env, "NO_COLOR")
		r := startInTerminal(t, bin, f.env, "plugins run ask --timeout 5s")
		r.waitFor("Your name?")
		if rc := r.exitCode(); rc != 1 {
			t.Errorf("exit %d, want 1; screen:\n%s", rc, r.pane())
		}
		if s := r.pane(); strings.Contains(s, "asked by") || !strings.Contains(s, "timed out after 5s") {
			t.Errorf("the withdrawn question is still on screen, or no error:\n%s", s)
		}
		// The question's cancel or the run's, whichever the plugin reads
		// first: it exits on either.
		var got struct{ Type, Reason string }
		if err := json.Unmarshal([]byte(waitFile(t, answers, "cancel")), &got); err != nil || got.Type != "cancel" || got.Reason != "timeout" {
			t.Errorf("the plugin got %+v (%v), want a cancel for the timeout", got, err)
		}
		r.restored()
	})
}

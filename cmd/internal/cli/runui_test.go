package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
)

// These tests drive a real fledge binary on a real terminal (tmux), so the
// huh questions, Ctrl+C and the prompt timeout are exercised as a person
// meets them.

// buildFledge returns the fledge the package's tests (internal and
// external) run as a real process: the copy of the test binary that
// testscript.Main (see TestMain) puts on PATH as "fledge", which runs
// cli.Main exactly as cmd/fledge does. When it is not there (the test binary
// was run some other way) ./cmd/fledge is built once (testutil.BuildGo), and
// RemoveBuiltFledge deletes it after the run.
func buildFledge(t *testing.T) string {
	t.Helper()
	builtFledge.once.Do(func() {
		if p, err := exec.LookPath("fledge"); err == nil && strings.Contains(p, "testscript-main") {
			builtFledge.bin = p
			return
		}
		if builtFledge.dir, builtFledge.err = os.MkdirTemp("", "fledge-built"); builtFledge.err != nil {
			return
		}
		builtFledge.bin = filepath.Join(builtFledge.dir, "fledge")
		builtFledge.err = testutil.BuildGo(builtFledge.bin, "github.com/corvidlabs/fledge-go/cmd/fledge")
	})
	if builtFledge.err != nil {
		t.Fatalf("building fledge: %v", builtFledge.err)
	}
	return builtFledge.bin
}

var builtFledge struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

type tmuxSession struct {
	t    *testing.T
	name string
}

func startTmux(t *testing.T, command string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; terminal tests need it")
	}
	// A short directory, not t.TempDir (which holds the test's name): the
	// socket's path must fit in sun_path (108 bytes).
	dir, err := os.MkdirTemp("", "tmux")
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "s")
	s := &tmuxSession{t: t, name: socket}
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-S", socket, "kill-server").Run()
		os.RemoveAll(dir)
	})
	if out, err := exec.Command("tmux", "-S", socket, "new-session", "-d", "-x", "100", "-y", "30", command).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	return s
}

func (s *tmuxSession) pane() string {
	out, _ := exec.Command("tmux", "-S", s.name, "capture-pane", "-p").Output()
	return string(out)
}

func (s *tmuxSession) waitFor(text string) {
	s.t.Helper()
	deadline := time.Now().Add(testutil.WaitLimit)
	for time.Now().Before(deadline) {
		if strings.Contains(s.pane(), text) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("terminal never showed %q; it shows:\n%s", text, s.pane())
}

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	args := append([]string{"-S", s.name, "send-keys", "-t", "0"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys: %v: %s", err, out)
	}
}

// waitFile waits for path to contain text and returns its content.
func waitFile(t *testing.T, path, text string) string {
	t.Helper()
	deadline := time.Now().Add(testutil.WaitLimit)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), text) {
			return string(data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	data, _ := os.ReadFile(path)
	t.Fatalf("%s never contained %q: %q", path, text, data)
	return ""
}

const askPlugin = `#!/bin/sh
IFS= read -r init
ask() { printf '%s\n' "$1"; IFS= read -r r; printf '%s\n' "$r" >> "$FLEDGE_PLUGIN_DIR/answers"; case "$r" in *'"cancel"'*) exit 130 ;; esac; }
ask '{"type":"prompt","id":"1","message":"Your name?","default":"world","validate":"non_empty"}'
ask '{"type":"confirm","id":"2","message":"Deploy now?","default":false}'
ask '{"type":"select","id":"3","message":"Target?","options":["dev","prod"],"default":0}'
printf '%s\n' '{"type":"progress","message":"Uploading","current":1,"total":2}'
printf '%s\n' '{"type":"output","text":"finished\n"}'
ask '{"type":"prompt","id":"4","message":"Last words?"}'
`

// askFirstAnswers is what askPlugin receives when the user answers Ada,
// yes and prod; askAnswers when the last question gets "bye".
const (
	askFirstAnswers = `{"type":"response","id":"1","value":"Ada"}
{"type":"response","id":"2","value":true}
{"type":"response","id":"3","value":"prod"}
`
	askAnswers = askFirstAnswers + `{"type":"response","id":"4","value":"bye"}
`
)

func installAsk(t *testing.T) (*runFixture, string) {
	f := newRunFixture(t)
	f.install("fledge-plugin-ask", "fledge-v1", map[string]string{"ask": "bin/ask"}, map[string]string{"bin/ask": askPlugin}, manifest.Capabilities{})
	return f, filepath.Join(f.paths.PluginDir("fledge-plugin-ask"), "answers")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// The questions are answered at a person's pace, however slowly a busy
// machine shows them: the prompt timeout is its default, minutes.
func TestTerminalQuestions(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)
	f, answers := installAsk(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := "env FLEDGE_HOME=" + shellQuote(f.paths.Root()) + " NO_COLOR=1 " + shellQuote(bin) +
		" ask >" + shellQuote(out) + "; echo exit=$? >>" + shellQuote(out) + "; sleep 30"
	s := startTmux(t, cmd)
	s.waitFor("Your name?")
	if !strings.Contains(s.pane(), "asked by fledge-plugin-ask") {
		t.Errorf("the question does not say who asks:\n%s", s.pane())
	}
	s.keys("Ada", "Enter") // replaces the default "world", shown as a placeholder
	s.waitFor("Deploy now?")
	s.keys("y")
	s.waitFor("Target?")
	s.keys("Down", "Enter")
	s.waitFor("Last words?")
	s.keys("bye", "Enter")
	got := waitFile(t, out, "exit=")
	if got != "finished\nexit=0\n" {
		t.Errorf("stdout = %q", got)
	}
	data, _ := os.ReadFile(answers)
	if string(data) != askAnswers {
		t.Errorf("answers:\n%s\nwant:\n%s", data, askAnswers)
	}
}

// A question nobody answers is withdrawn after FLEDGE_PROMPT_TIMEOUT with
// a cancel (reason timeout), and the plugin exits 130. Nobody types: no
// keystroke races the timeout.
func TestTerminalPromptTimeout(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)
	f, answers := installAsk(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := "env FLEDGE_HOME=" + shellQuote(f.paths.Root()) + " FLEDGE_PROMPT_TIMEOUT=1s NO_COLOR=1 " + shellQuote(bin) +
		" ask >" + shellQuote(out) + "; echo exit=$? >>" + shellQuote(out) + "; sleep 30"
	s := startTmux(t, cmd)
	got := waitFile(t, out, "exit=")
	if got != "exit=130\n" {
		t.Errorf("stdout = %q", got)
	}
	data, _ := os.ReadFile(answers)
	if want := `{"type":"cancel","id":"1","reason":"timeout"}` + "\n"; string(data) != want {
		t.Errorf("answers = %q, want %q", data, want)
	}
	if !strings.Contains(s.pane(), "within 1s") {
		t.Errorf("the screen does not say the question went unanswered within 1s:\n%s", s.pane())
	}
}

func TestTerminalCtrlCInAQuestion(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)
	f, answers := installAsk(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := "env FLEDGE_HOME=" + shellQuote(f.paths.Root()) + " NO_COLOR=1 " + shellQuote(bin) +
		" ask >" + shellQuote(out) + "; echo exit=$? >>" + shellQuote(out) + "; sleep 30"
	s := startTmux(t, cmd)
	s.waitFor("Your name?")
	s.keys("C-c")
	got := waitFile(t, out, "exit=")
	if got != "exit=130\n" {
		t.Errorf("stdout = %q, want the plugin's exit 130", got)
	}
	data, _ := os.ReadFile(answers)
	if !strings.HasPrefix(string(data), `{"type":"cancel","id":"1","reason":"user_interrupt"}`) {
		t.Errorf("answers = %q", data)
	}
}

func TestTerminalCtrlCWhileRunning(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)
	f := newRunFixture(t)
	f.install("fledge-plugin-wait", "fledge-v1", map[string]string{"wait": "bin/wait"}, map[string]string{"bin/wait": `#!/bin/sh
IFS= read -r init
echo ready >&2
IFS= read -r msg
printf '%s\n' "$msg" > "$FLEDGE_PLUGIN_DIR/got"
exit 130
`}, manifest.Capabilities{})
	f.install("fledge-plugin-native", "", map[string]string{"native": "bin/native"}, map[string]string{"bin/native": `#!/bin/sh
trap 'echo trapped; exit 3' INT
echo ready >&2
sleep 30 & wait
`}, manifest.Capabilities{})
	for _, tc := range []struct{ cmd, want string }{{"wait", "exit=130\n"}, {"native", "trapped\nexit=3\n"}} {
		out := filepath.Join(t.TempDir(), "out")
		s := startTmux(t, "env FLEDGE_HOME="+shellQuote(f.paths.Root())+" "+shellQuote(bin)+" "+tc.cmd+" >"+shellQuote(out)+"; echo exit=$? >>"+shellQuote(out)+"; sleep 30")
		s.waitFor("ready")
		s.keys("C-c")
		if got := waitFile(t, out, "exit="); got != tc.want {
			t.Errorf("%s: stdout = %q, want %q", tc.cmd, got, tc.want)
		}
	}
	data, _ := os.ReadFile(filepath.Join(f.paths.PluginDir("fledge-plugin-wait"), "got"))
	if string(data) != `{"type":"cancel","reason":"user_interrupt"}`+"\n" {
		t.Errorf("the protocol plugin got %q", data)
	}
}

//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

// questionsPlugin asks one question of each kind, records the answers in
// $FLEDGE_PLUGIN_DIR/answers and says goodbye.
const questionsPlugin = `#!/bin/sh
IFS= read -r init
ask() { printf '%s\n' "$1"; IFS= read -r r; printf '%s\n' "$r" >> "$FLEDGE_PLUGIN_DIR/answers"; case "$r" in *'"cancel"'*) exit 130 ;; esac; }
ask '{"type":"prompt","id":"1","message":"What'"'"'s your name?","default":"world","validate":"non_empty"}'
ask '{"type":"prompt","id":"2","message":"Deploy target?","default":"staging"}'
ask '{"type":"prompt","id":"3","message":"Tag?","default":"v1\u001b[31m"}'
ask '{"type":"confirm","id":"4","message":"Deploy now?","default":false}'
ask '{"type":"select","id":"5","message":"Target?","options":["dev","prod"],"default":0}'
ask '{"type":"multi_select","id":"6","message":"Regions?","options":["us-east-1","eu-west-1","ap-southeast-1"],"defaults":[0]}'
printf '%s\n' '{"type":"output","text":"bye\n"}'
`

// Plugin questions ask as dialoguer and gh do: a default is a placeholder
// (typing replaces it, Enter takes it), and each answered question leaves
// one line naming the plugin that asked. The plugin gets back exactly what
// it offered.
func TestTerminalPromptsLeaveTheirAnswers(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)
	f := newRunFixture(t)
	f.install("fledge-plugin-ask", "fledge-v1", map[string]string{"ask": "bin/ask"}, map[string]string{"bin/ask": questionsPlugin}, manifest.Capabilities{})
	answers := filepath.Join(f.paths.PluginDir("fledge-plugin-ask"), "answers")
	r := startInTerminal(t, bin, f.env, "ask")

	r.waitFor("What's your name?")
	r.waitFor("> default: world") // the default, a placeholder that says so under NO_COLOR
	r.keys("Ada")
	r.waitFor("> Ada")
	if s := r.pane(); strings.Contains(s, "worldAda") || strings.Contains(s, "Adaworld") {
		t.Errorf("typing did not replace the default:\n%s", s)
	}
	r.keys("Enter")
	r.waitFor("Deploy target?")
	r.keys("Enter") // takes the default
	r.waitFor("Tag?")
	r.waitFor(`> default: v1\x1b[31m`) // shown escaped
	r.keys("Enter")
	r.waitFor("Deploy now?")
	r.keys("y")
	r.waitFor("Target?")
	r.keys("Down", "Enter")
	r.waitFor("Regions?")
	r.keys("Down", "x", "Enter")
	r.waitFor("bye")
	if rc := r.exitCode(); rc != 0 {
		t.Fatalf("exit %d; screen:\n%s", rc, r.pane())
	}

	screen := r.pane()
	t.Logf("the screen after the questions:\n%s", strings.TrimRight(screen, "\n"))
	wantLines := []string{
		"? [fledge-plugin-ask] What's your name? Ada",
		"? [fledge-plugin-ask] Deploy target? staging",
		`? [fledge-plugin-ask] Tag? v1\x1b[31m`,
		"? [fledge-plugin-ask] Deploy now? Yes",
		"? [fledge-plugin-ask] Target? prod",
		"? [fledge-plugin-ask] Regions? us-east-1, eu-west-1",
		"bye",
	}
	var got []string
	for _, l := range strings.Split(screen, "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("screen:\n%s\nwant exactly:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
	data, _ := os.ReadFile(answers)
	want := `{"type":"response","id":"1","value":"Ada"}
{"type":"response","id":"2","value":"staging"}
{"type":"response","id":"3","value":"v1\u001b[31m"}
{"type":"response","id":"4","value":true}
{"type":"response","id":"5","value":"prod"}
{"type":"response","id":"6","value":["us-east-1","eu-west-1"]}
`
	if string(data) != want {
		t.Errorf("the plugin got:\n%s\nwant:\n%s", data, want)
	}
	r.restored()
}

// fledge's own questions take their default the same way.
func TestTerminalOwnPromptPlaceholder(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)
	f := newRunFixture(t)
	parent := t.TempDir()
	r := startInTerminal(t, bin, f.env, "plugins create birds -o "+shellQuote(parent))
	r.waitFor("Description")
	r.waitFor("> default: Says hello through the fledge-v1 protocol")
	r.keys("Enter")
	if rc := r.exitCode(); rc != 0 {
		t.Fatalf("exit %d; screen:\n%s", rc, r.pane())
	}
	if !regexp.MustCompile(`(?m)^\? Description Says hello through the fledge-v1 protocol$`).MatchString(r.pane()) {
		t.Errorf("no answered line:\n%s", r.pane())
	}
	data, err := os.ReadFile(filepath.Join(parent, "fledge-plugin-birds", "plugin.toml"))
	if err != nil || !strings.Contains(string(data), `description = "Says hello through the fledge-v1 protocol"`) {
		t.Errorf("plugin.toml (%v):\n%s", err, data)
	}
	r.restored()
}

// A question that SIGTERM ends is not answered: Bubble Tea quits the form
// as if it were submitted, and fledge must not take what was on screen
// (here, the default) for the user's answer.
func TestTerminalSIGTERMIsNoAnswer(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)
	f := newRunFixture(t)
	parent := t.TempDir()
	r := startInTerminal(t, bin, f.env, "plugins create birds -o "+shellQuote(parent))
	r.waitFor("> default: Says hello through the fledge-v1 protocol")
	data := waitFile(t, filepath.Join(r.dir, "fledge.pid"), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(data))
	if err != nil {
		t.Fatalf("pid %q", data)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if rc := r.exitCode(); rc == 0 {
		t.Errorf("exit 0 after SIGTERM at the question; screen:\n%s", r.pane())
	}
	if s := r.pane(); strings.Contains(s, "what the plugin does") {
		t.Errorf("the unanswered question is still on screen:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(parent, "fledge-plugin-birds")); !os.IsNotExist(err) {
		t.Errorf("the plugin was created with the question unanswered (%v)", err)
	}
	r.restored()
}

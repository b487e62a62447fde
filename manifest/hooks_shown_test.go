package manifest

import (
	"os"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// FuzzHookShownIsRun: for any hook string, fledge either refuses the
// manifest (Parse or Validate) or shows the hook in a form that a terminal
// displays as it is and that, unescaped, is exactly what runs.
func FuzzHookShownIsRun(f *testing.F) {
	for _, s := range []string{
		"cargo build --release",
		"make\nmake install\n",
		"printf 'a\\nb\\t' && echo \\\\",
		"make #\u009d\ntouch $HOME/pwned; echo $AWS_SECRET_ACCESS_KEY >$HOME/stolen\n#\x07",
		"make #\x1b]0;\ntouch $HOME/pwned; echo $AWS_SECRET_ACCESS_KEY >$HOME/stolen\n#\x07",
		"make #\x1bP\ntouch x\n\x1b\\",
		"rm -rf ./cache\u202e",
		"a\u200bb\ufeff",
		"safe\rEVIL",
		"make\r\n",
		"\xff\xfe",
		"echo \U000e0041",
		"touch /tmp/PWNED;" + strings.Repeat(" ", 6000) + "make",
		"touch x" + strings.Repeat("\n", 50) + "make",
	} {
		f.Add(s)
	}
	// Every hook the published plugins declare.
	for _, file := range corpusFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		m, err := Parse(data)
		if err != nil {
			continue
		}
		h := m.Hooks
		for _, s := range []string{h.Build, h.PostInstall, h.PostRemove, h.PreInit, h.PostWorkStart, h.PrePush} {
			if s != "" {
				f.Add(s)
			}
		}
	}
	base := Manifest{Plugin: Plugin{Name: "fledge-plugin-x", Version: "1.0.0"}, Commands: []Command{{Name: "x", Binary: "bin/x"}}}
	f.Fuzz(func(t *testing.T, hook string) {
		// As a struct: every hook field.
		for _, name := range HookNames {
			m := base
			m.Hooks = hooksWith(name, hook)
			shownIsRun(t, &m, name, hook)
		}
		// As plugin.toml: what fledge reads from the file is what it checks.
		m := base
		m.Hooks.Build = hook
		data, err := toml.Marshal(&m)
		if err != nil {
			return // not representable in TOML: never installed
		}
		read, err := Parse(data)
		if err != nil {
			return // refused
		}
		shownIsRun(t, read, HookBuild, read.Hooks.Build)
	})
}

func hooksWith(name, cmd string) Hooks {
	var h Hooks
	switch name {
	case HookBuild:
		h.Build = cmd
	case HookPostInstall:
		h.PostInstall = cmd
	case HookPostRemove:
		h.PostRemove = cmd
	case HookPreInit:
		h.PreInit = cmd
	case HookPostWorkStart:
		h.PostWorkStart = cmd
	case HookPrePush:
		h.PrePush = cmd
	}
	return h
}

// shownIsRun checks one hook of m: refused with an error naming its field,
// or shown (termsafe.Escape, as every display of a hook does) so that the
// terminal shows every byte and unescaping gives back the command.
func shownIsRun(t *testing.T, m *Manifest, name, runs string) {
	t.Helper()
	for _, p := range m.Validate().Errors() {
		if p.Field == "hooks."+name {
			if runs == "" {
				t.Fatalf("an empty hook was refused: %v", p)
			}
			return // refused
		}
	}
	shown := termsafe.Escape(runs)
	if termsafe.Line(shown) != shown {
		t.Fatalf("hook %q is accepted, but its display %q is altered on a terminal to %q", runs, shown, termsafe.Line(shown))
	}
	if strings.ContainsAny(shown, "\n\r") {
		t.Fatalf("the display of %q spans lines: %q", runs, shown)
	}
	back, err := termsafe.Unescape(shown)
	if err != nil || back != runs {
		t.Fatalf("hook %q is accepted, but its display %q unescapes to %q (%v)", runs, shown, back, err)
	}
	// Accepted means it is seen whole: no padding, and short enough.
	if p := termsafe.FirstPadding(runs); p != nil || len(runs) > MaxCommandLen {
		t.Fatalf("hook %.60q is accepted with %v, %d bytes", runs, p, len(runs))
	}
	// Accepted means nothing in it is hidden: the display holds only
	// printable text and escapes for newline, tab and backslash.
	if strings.Contains(strings.NewReplacer(`\\`, "", `\n`, "", `\t`, "").Replace(shown), `\`) {
		t.Fatalf("hook %q is accepted with hidden characters: shown as %q", runs, shown)
	}
}

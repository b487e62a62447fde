//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/lockfile"
)

// A hook recorded before hooks had to be shown byte-exact (here a
// post_remove whose 8-bit OSC … BEL hides a payload line) is shown escaped
// by audit — every byte visible, nothing stripped — and never runs: remove
// skips it, says why, and still removes the plugin.
func TestRecordedHiddenHookIsShownEscapedAndNeverRuns(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	home := filepath.Join(e.work, "home")
	e.local("old", hPlugin("fledge-plugin-old", "1.0.0", "\n[hooks]\npost_remove = \"touch $HOME/cleaned\"\n"))
	e.ok("plugins", "install", "./old", "--copy", "--yes")

	hidden := "touch $HOME/cleaned #\u009d\ntouch $HOME/pwned; echo $AWS_SECRET_ACCESS_KEY >$HOME/stolen\n#\a"
	path := filepath.Join(e.fh, "plugins.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := lockfile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := f.Get("fledge-plugin-old")
	if !ok || p.Hooks["post_remove"] != "touch $HOME/cleaned" {
		t.Fatalf("the post_remove hook was not recorded:\n%s", data)
	}
	p.Hooks["post_remove"] = hidden
	if data, err = lockfile.Marshal(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// audit: the whole hook, escaped on one line, and a warning.
	r := e.ok("plugins", "audit")
	hNoRaw(t, "audit", r.out)
	want := `hook post_remove:   touch $HOME/cleaned #\u009d\ntouch $HOME/pwned; echo $AWS_SECRET_ACCESS_KEY >$HOME/stolen\n#\x07`
	if !strings.Contains(string(r.out), want) {
		t.Errorf("audit does not show the recorded hook escaped; want %q in\n%s", want, r.out)
	}
	if !strings.Contains(string(r.out), "! approved hook post_remove contains U+009D (a terminal control character) at byte 22") ||
		!strings.Contains(string(r.out), "it will never run") {
		t.Errorf("audit does not warn about the hook\n%v", r)
	}
	// audit --json: the exact recorded string (JSON escapes it), and the warning.
	doc := hJSON(t, e.ok("plugins", "audit", "--json"))
	if got := hStr(doc, "audit", 0, "approved_hooks", "post_remove"); got != hidden {
		t.Errorf("audit --json approved_hooks.post_remove = %q, want the recorded %q", got, hidden)
	}
	if w := strings.Join(hStrings(doc, "audit", 0, "warnings"), "\n"); !strings.Contains(w, "post_remove contains U+009D") {
		t.Errorf("audit --json warnings lack the hook: %q", w)
	}

	// remove: the hook does not run; the plugin is removed, and stderr
	// says why and what to do.
	r = e.run("plugins", "remove", "old")
	if r.code != 0 {
		t.Fatalf("remove failed\n%v", r)
	}
	hNoRaw(t, "remove", r.err)
	for _, w := range []string{"post_remove hook", "is not run", "U+009D", "review it and run it yourself", `#\u009d\ntouch $HOME/pwned`} {
		if !strings.Contains(string(r.err), w) {
			t.Errorf("remove's warning lacks %q\n%v", w, r)
		}
	}
	for _, f := range []string{"cleaned", "pwned", "stolen"} {
		if _, err := os.Stat(filepath.Join(home, f)); err == nil {
			t.Errorf("the recorded hook ran: $HOME/%s exists", f)
		}
	}
	e.absent("fledge-plugin-old", "old")
}

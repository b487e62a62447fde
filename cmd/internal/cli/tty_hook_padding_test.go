package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A hook padded with spaces scrolled its payload off an 80x40 approval
// screen, which then showed only the "make" at its end. Install and
// update --dry-run refuse it before anything is shown, naming the field
// and the padding, and nothing runs.
func TestTTYPaddedHookIsRefused(t *testing.T) {
	t.Parallel()
	tmux := lookTmux(t)
	bin := buildFledge(t)
	e := newTTYEnv(t, tmux, bin)
	e.cols, e.rows = 80, 40
	padded := `build = "touch $HOME/pwned;` + strings.Repeat(" ", 6000) + `make"`
	want := "hooks.build: contains a run of 6000 spaces at byte 19"
	// The screen wraps at 80 columns: compare without whitespace.
	shows := func(s string) bool { return strings.Contains(squash(s), squash(want)) }

	repo := e.repo("fledge-plugin-padded", "[capabilities]\nstore = true\n", padded)
	p := e.start(fmt.Sprintf("%s plugins install file://%s", sq(bin), repo))
	if rc := p.exitCode(); rc != 1 {
		t.Fatalf("install exited %d, want 1; screen:\n%s", rc, p.screen())
	}
	if s := p.screen(); strings.Contains(s, "Grant") || !shows(s) {
		t.Errorf("want the refusal %q and no prompt; screen:\n%s", want, s)
	}
	e.wantNothingInstalled("fledge-plugin-padded")
	e.wantNotRun()

	// update --dry-run: v1 is clean, v2 adds the padded build hook.
	up := e.repo("fledge-plugin-upd", "[capabilities]\nstore = true\n", "")
	e.fledge("plugins", "install", "file://"+up, "--yes")
	manifest := filepath.Join(up, "plugin.toml")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	v2 := strings.Replace(string(data), `version = "0.1.0"`, `version = "0.2.0"`, 1) + "\n[hooks]\n" + padded + "\n"
	if err := os.WriteFile(manifest, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := commitAllIn(up, "v2"); err != nil {
		t.Fatal(err)
	}
	e2 := *e
	e2.sock = filepath.Join(e.dir, "tmux2.sock")
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", e2.sock, "kill-server").Run() })
	if err := os.Remove(e.rc()); err != nil {
		t.Fatal(err)
	}
	p = e2.start(fmt.Sprintf("%s plugins update --dry-run", sq(bin)))
	rc := p.exitCode()
	s := p.screen()
	if rc == 0 || !shows(s) {
		t.Errorf("update --dry-run exited %d; want the refusal %q; screen:\n%s", rc, want, s)
	}
	e.wantNotRun()
}

func squash(s string) string { return strings.Join(strings.Fields(s), "") }

//go:build unix

package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// With ACCESSIBLE=1 (huh's plain-line mode, for screen readers) the
// approval form shows its warnings, and Ctrl+C (a signal there, the
// terminal reading whole lines) leaves it at once with nothing installed:
// the same exits and the same warnings as the full-screen form.
func TestTerminalAccessibleApproval(t *testing.T) {
	t.Parallel()
	bin := buildFledge(t)
	f := newE2EFixture(t)
	dir := filepath.Join(t.TempDir(), "fledge-plugin-acc")
	files := e2ePluginToml("acc", "1.0.0")
	files["plugin.toml"] += "\n[capabilities]\nexec = true\nstore = true\n"
	newE2ERepo(t, dir).commit(t, files, "")
	env := map[string]string{"ACCESSIBLE": "1"}
	for k, v := range f.env {
		env[k] = v
	}
	r := startInTerminal(t, bin, env, "plugins install file://"+shellQuote(dir))
	r.waitFor("Grant fledge-plugin-acc")
	r.waitFor("Unverified source: review before granting exec")
	r.waitFor("Enter a number")
	r.keys("C-c")
	if rc := r.exitCode(); rc != 130 {
		t.Fatalf("Ctrl+C in the accessible form: exit %d, want 130 without Enter; screen:\n%s", rc, r.pane())
	}
	if !strings.Contains(r.pane(), "interrupted: nothing was installed") {
		t.Errorf("no word of the interrupt:\n%s", r.pane())
	}
	if code, out, _ := f.fledge("plugins", "list", "--json"); code != 0 || !strings.Contains(out, `"plugins": []`) {
		t.Errorf("something was installed: %s", out)
	}
	r.restored()
}

package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
)

// The approval form says, beside network and filesystem, what holds the
// plugin to the choice here: the kernel for a native plugin where Landlock
// can (as audit reports it), nothing when confinement is off, and no longer
// "not enforceable" where it is enforced.
func TestApprovalFormSaysWhatEnforcesNetworkAndFiles(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	src := filepath.Join(t.TempDir(), "fledge-plugin-nf")
	files := e2ePluginToml("nf", "1.0.0")
	files["plugin.toml"] += "\n[capabilities]\nnetwork = true\nfilesystem = \"project\"\nstore = true\n"
	newE2ERepo(t, src).commit(t, files, "")

	s := confine.Detect()
	want := "(enforced by the kernel)"
	if !s.Files || !s.Network {
		want = "(not enforced here: " + s.Reason + ")"
	}
	for _, c := range []struct{ off, want string }{{"", want}, {"off", "(not enforced: confinement turned off by FLEDGE_CONFINE=off)"}} {
		f.env["FLEDGE_CONFINE"] = c.off
		p := newMockPrompter(t, promptStep{kind: "multiselect", title: "Grant fledge-plugin-nf", answer: []int{}})
		f.fledgeOnTerminal(p, "plugins", "install", "file://"+src, "--force")
		if len(p.asked) != 1 {
			t.Fatalf("FLEDGE_CONFINE=%q: asked %q", c.off, p.asked)
		}
		form := p.asked[0]
		for _, item := range []string{"make network requests " + c.want, "access files " + c.want} {
			if !strings.Contains(form, item) {
				t.Errorf("FLEDGE_CONFINE=%q: the form lacks %q:\n%s", c.off, item, form)
			}
		}
		if strings.Contains(form, "not enforceable") || strings.Contains(form, "keep data between runs (") {
			t.Errorf("FLEDGE_CONFINE=%q: store carries a note, or the old claim is back:\n%s", c.off, form)
		}
	}
}

// A plugin turned unconfined one by one (fledge plugins unconfine NAME),
// or all at once (--all), is shown so on the form of its reinstall and of
// its grant: nothing enforces network, files or the environment then.
// Environment says what holds it: withheld unless granted, or nothing.
func TestApprovalFormReflectsUnconfine(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	src := filepath.Join(t.TempDir(), "fledge-plugin-nf")
	files := e2ePluginToml("nf", "1.0.0")
	files["plugin.toml"] += "\n[capabilities]\nnetwork = true\nenvironment = [\"GITHUB_TOKEN\"]\n"
	newE2ERepo(t, src).commit(t, files, "")
	f.env["FLEDGE_CONFINE"] = ""
	if code, _, stderr := f.fledge("plugins", "install", "file://"+src, "--grant", "none"); code != 0 {
		t.Fatalf("install: %s", stderr)
	}
	form := func(args ...string) string {
		t.Helper()
		p := newMockPrompter(t, promptStep{kind: "multiselect", title: "Grant fledge-plugin-nf", answer: []int{}})
		f.fledgeOnTerminal(p, args...)
		if len(p.asked) != 1 {
			t.Fatalf("%v: asked %q", args, p.asked)
		}
		return p.asked[0]
	}
	if got := form("plugins", "grant", "nf"); !strings.Contains(got, "environment (GITHUB_TOKEN) receive these environment variables (its code reads them directly) (others are withheld from it)") {
		t.Errorf("confined, the form:\n%s", got)
	}
	for _, off := range []struct {
		args []string
		want string
	}{
		{[]string{"plugins", "unconfine", "nf"}, "for this plugin"},
		{[]string{"plugins", "unconfine", "--all"}, "for every plugin"},
	} {
		if code, _, stderr := f.fledge(off.args...); code != 0 {
			t.Fatalf("%v: %s", off.args, stderr)
		}
		for _, args := range [][]string{{"plugins", "grant", "nf"}, {"plugins", "install", "file://" + src, "--force"}} {
			got := form(args...)
			for _, want := range []string{"make network requests (not enforced: confinement turned off by ", "so it gets your whole environment)", off.want} {
				if !strings.Contains(got, want) {
					t.Errorf("after %v, %v: the form lacks %q:\n%s", off.args, args, want, got)
				}
			}
			if strings.Contains(got, "(enforced by the kernel)") {
				t.Errorf("after %v, %v: the form says the kernel enforces it:\n%s", off.args, args, got)
			}
		}
		confine := []string{"plugins", "confine", "nf"}
		if off.args[2] == "--all" {
			confine = []string{"plugins", "confine", "--all"}
		}
		if code, _, stderr := f.fledge(confine...); code != 0 {
			t.Fatalf("%v: %s", confine, stderr)
		}
	}
}

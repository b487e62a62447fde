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

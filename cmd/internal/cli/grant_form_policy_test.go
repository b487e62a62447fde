package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The grant form offers only what the admin policy allows the plugin's
// tier, as install's form does: a forbidden item is named with its rule
// before the form, never offered and then refused. When the policy forbids
// everything the plugin requests, no form is shown at all.
func TestGrantFormOffersOnlyWhatPolicyAllows(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	src := filepath.Join(t.TempDir(), "fledge-plugin-pf")
	files := e2ePluginToml("pf", "1.0.0")
	files["plugin.toml"] += "\n[capabilities]\nexec = true\nstore = true\nmetadata = true\n"
	newE2ERepo(t, src).commit(t, files, "")
	if code, _, errOut := f.fledge("plugins", "install", "file://"+src, "--grant", "metadata"); code != 0 {
		t.Fatalf("install: exit %d: %s", code, errOut)
	}
	pol := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(pol, []byte("[capabilities]\nunverified = [\"store\", \"metadata\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.env["FLEDGE_POLICY"] = pol

	p := newMockPrompter(t, promptStep{kind: "multiselect", title: "Grant fledge-plugin-pf", answer: []int{0, 1}})
	code, _, errOut := f.fledgeOnTerminal(p, "plugins", "grant", "pf")
	if code != 0 {
		t.Fatalf("grant: exit %d: %s", code, errOut)
	}
	if len(p.asked) != 1 || strings.Contains(p.asked[0], "exec ") || !strings.Contains(p.asked[0], "store ") || !strings.Contains(p.asked[0], "metadata ") {
		t.Errorf("the form offered %q; want store and metadata, not exec", p.asked)
	}
	if !strings.Contains(errOut, "policy: fledge-plugin-pf cannot be granted exec: ") {
		t.Errorf("the forbidden exec is not named before the form:\n%s", errOut)
	}

	// Nothing left to offer: the policy's refusal, and no form.
	if err := os.WriteFile(pol, []byte("[capabilities]\nunverified = []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := f.fledgeOnTerminal(newMockPrompter(t), "plugins", "grant", "pf", "--json")
	if code == 0 || !strings.Contains(out, `"code": "policy_denied"`) {
		t.Errorf("everything forbidden: exit %d, stdout %s, stderr %s; want policy_denied", code, out, errOut)
	}
}

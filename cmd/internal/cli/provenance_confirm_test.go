package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
)

// On a terminal, an update to a lower provenance is asked about (default
// no, and --yes does not answer it); a yes is taken and logged as
// re-approved on a terminal.
func TestUpdateAsksAboutALowerProvenanceOnATerminal(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	key := provenancetest.NewSSHKey(t, t.TempDir(), "ann")
	files := map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-sig\"\nversion = \"1.0.0\"\n\n[[commands]]\nname = \"sig\"\nbinary = \"bin/sig\"\n",
		"bin/sig":     "#!/bin/sh\n",
	}
	r := provenancetest.NewRepo(t, filepath.Join(t.TempDir(), "fledge-plugin-sig"), files)
	r.SignWithSSH(key)
	r.Git("tag", "-s", "-m", "1.0.0", "v1.0.0")
	if code, _, errOut := f.fledge("plugins", "install", "file://"+r.Dir+"@^1.0", "--yes"); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, errOut)
	}
	r.Commit("1.1", map[string]string{"NOTE": "unsigned"})
	r.Git("tag", "-a", "-m", "1.1.0", "v1.1.0")

	no := newMockPrompter(t, promptStep{kind: "confirm", title: "Accept a lower provenance for fledge-plugin-sig?", answer: false})
	code, out, errOut := f.fledgeOnTerminal(no, "plugins", "update", "--yes", "--json")
	var doc struct {
		Results []struct {
			Error *struct{ Code string } `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || len(doc.Results) != 1 || doc.Results[0].Error == nil || doc.Results[0].Error.Code != CodeProvenanceDowngrade {
		t.Fatalf("declined: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	if !strings.Contains(errOut, "recorded: a signed-tag by "+key.Fingerprint) || !strings.Contains(errOut, "fetched:  unsigned") {
		t.Errorf("the question does not show both sides:\n%s", errOut)
	}

	yes := newMockPrompter(t, promptStep{kind: "confirm", title: "Accept a lower provenance", answer: true})
	if code, out, errOut := f.fledgeOnTerminal(yes, "plugins", "update"); code != 0 || !strings.Contains(out, "updated") {
		t.Fatalf("accepted: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = f.fledge("plugins", "audit", "--log", "--json", "--plugin", "fledge-plugin-sig")
	if code != 0 || !strings.Contains(out, `"override": "re-approved on a terminal"`) {
		t.Errorf("the grant log does not record the override:\n%s", out)
	}
}

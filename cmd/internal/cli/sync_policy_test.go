package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/grantlog"
)

// sync --policy installs the policy's required plugins non-interactively
// with exactly the grants it pre-approves, recorded as the policy's; a
// second run changes nothing; audit reports one missing or drifted, and
// sync moves a drifted one; a pre-approval beyond the policy's own
// ceilings is refused, with exit 1.
func TestSyncPolicyRequiredPlugins(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	gh := strings.TrimPrefix(f.env["FLEDGE_GITHUB_URL"], "file://")
	repo := newE2ERepo(t, filepath.Join(gh, "acme", "fledge-plugin-x"))
	files := e2ePluginToml("x", "1.0.0")
	files["plugin.toml"] = strings.Replace(files["plugin.toml"], "\n\n[[commands]]", "\n\n[capabilities]\nstore = true\nmetadata = true\n\n[[commands]]", 1)
	v1 := repo.commit(t, files, "v1.0.0")
	files["plugin.toml"] = strings.Replace(files["plugin.toml"], `version = "1.0.0"`, `version = "1.1.0"`, 1)
	v11 := repo.commit(t, files, "v1.1.0")

	pol := filepath.Join(t.TempDir(), "policy.toml")
	require := func(ref, ceiling string) {
		t.Helper()
		body := "[[required]]\nsource = \"acme/fledge-plugin-x@" + ref + "\"\ngrant = [\"store\"]\n" + ceiling
		if err := os.WriteFile(pol, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	require("v1.0.0", "")
	f.env["FLEDGE_POLICY"] = pol

	var audit struct {
		Required []requiredJSON `json:"required"`
	}
	code, out, _ := f.fledge("plugins", "audit", "--json", "--strict")
	if json.Unmarshal([]byte(out), &audit); code != ExitFailure || len(audit.Required) != 1 || audit.Required[0].Status != "missing" {
		t.Fatalf("audit before sync: exit %d\n%s", code, out)
	}

	var pd policyDoc
	if _, out, _ := f.fledge("plugins", "policy", "--json"); json.Unmarshal([]byte(out), &pd) != nil || len(pd.Required) != 1 ||
		pd.Required[0].Source != "acme/fledge-plugin-x@v1.0.0" || strings.Join(pd.Required[0].Grant, ",") != "store" || pd.Required[0].Rule != "[[required]] 1" {
		t.Errorf("policy --json does not show the required plugin: %s", out)
	}

	var doc syncPolicyDoc
	sync := func(want int) syncPolicyDoc {
		t.Helper()
		code, out, errOut := f.fledge("plugins", "sync", "--policy", "--json")
		doc = syncPolicyDoc{}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != want {
			t.Fatalf("sync --policy: exit %d (want %d), %v\n%s\n%s", code, want, err, out, errOut)
		}
		return doc
	}
	if d := sync(0); d.Required[0].Status != "installed" || d.Required[0].Commit != v1 || d.Summary["installed"] != 1 {
		t.Fatalf("first sync: %+v", d)
	}
	recs := readLog(t, f)
	last := recs[len(recs)-1]
	if last.Action != grantlog.ActionInstall || last.Consent["store"] != grantlog.ConsentRequired || last.Capabilities.Has("metadata") {
		t.Errorf("grant log: %+v (want store pre-approved by the policy, metadata not granted)", last)
	}
	if d := sync(0); d.Required[0].Status != "ok" || len(readLog(t, f)) != len(recs) {
		t.Errorf("second sync changed something: %+v", d)
	}
	_, out, _ = f.fledge("plugins", "audit", "--json")
	if json.Unmarshal([]byte(out), &audit); audit.Required[0].Status != "ok" || audit.Required[0].Plugin != "fledge-plugin-x" {
		t.Errorf("audit with the required plugin in place: %s", out)
	}

	require("v1.1.0", "")
	code, out, _ = f.fledge("plugins", "audit", "--json")
	if json.Unmarshal([]byte(out), &audit); audit.Required[0].Status != "drifted" || audit.Required[0].Ref != "v1.0.0" {
		t.Errorf("audit after the policy moved the ref: %s", out)
	}
	if d := sync(0); d.Required[0].Status != "updated" || d.Required[0].Commit != v11 {
		t.Errorf("sync of a drifted plugin: %+v", d)
	}

	// Beyond the ceiling: refused, exit 1, nothing changed.
	os.RemoveAll(filepath.Join(f.env["FLEDGE_HOME"]))
	require("v1.0.0", "[capabilities]\nunverified = [\"metadata\"]\n")
	if d := sync(ExitFailure); d.Required[0].Status != "failed" || d.Required[0].Error == nil || d.Required[0].Error.Code != CodePolicyDenied {
		t.Errorf("a pre-approval beyond the ceiling: %+v", d)
	}
}

func readLog(t *testing.T, f *e2eFixture) []grantlog.Record {
	t.Helper()
	var recs []grantlog.Record
	if _, err := grantlog.Read(filepath.Join(f.env["FLEDGE_HOME"], "grants.log"), nil, func(r grantlog.Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}

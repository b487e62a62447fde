//go:build unix

package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/provenance/provenancetest"
)

// mirror and bundle carry who signed a git plugin: under a policy that
// requires signatures, another machine installs it from the mirror, and a
// third syncs it offline from the bundle, each recording the origin's
// signer (install's tests refuse what does not match).
func TestMirrorAndBundleCarryTheSignature(t *testing.T) {
	t.Parallel()
	e, reg := ociEnv(t)
	keys := t.TempDir()
	ann := provenancetest.NewSSHKey(t, keys, "ann")
	allowed := provenancetest.AllowedSigners(t, filepath.Join(keys, "allowed"), "ann@example.com "+ann.Public)
	pol := filepath.Join(e.work, "policy.toml")
	if err := os.WriteFile(pol, []byte(fmt.Sprintf("[provenance]\nallowed_signers = [%q]\nrequire = \"signed\"\n", allowed)), 0o644); err != nil {
		t.Fatal(err)
	}
	e.extra = append(e.extra, "FLEDGE_POLICY="+pol)
	r := provenancetest.NewRepo(t, filepath.Join(e.gh, "o", "fledge-plugin-sg"), hPlugin("fledge-plugin-sg", "1.0.0", ""))
	if err := os.Chmod(filepath.Join(r.Dir, "bin", "sg"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.SignWithSSH(ann)
	r.Commit("executable", nil)
	r.Git("tag", "-s", "-m", "1.0.0", "v1.0.0")
	e.ok("plugins", "install", "o/fledge-plugin-sg@v1.0.0", "--yes", "--json")
	origin := hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-sg", "plugins")
	if hStr(origin, "provenance", "level") != "signed-tag" || hStr(origin, "provenance", "signer") != ann.Fingerprint {
		t.Fatalf("the origin install: %v", origin["provenance"])
	}

	doc := hJSON(t, e.ok("plugins", "mirror", "--to", "oci://"+reg.Host+"/team", "--json"))
	if hGet(doc, "results", 0, "signed") != true {
		t.Fatalf("mirror: %v", doc)
	}
	bundle := filepath.Join(e.work, "bundle")
	if doc := hJSON(t, e.ok("plugins", "bundle", "--out", bundle, "--json")); hGet(doc, "results", 0, "signed") != true {
		t.Fatalf("bundle: %v", doc)
	}
	team := filepath.Join(e.work, "team.toml")
	if err := os.WriteFile(team, e.pluginsToml(), 0o644); err != nil {
		t.Fatal(err)
	}
	same := func(e *hEnv, how string) {
		t.Helper()
		got := hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-sg", "plugins")
		for _, k := range []string{"level", "signer", "principal"} {
			if hStr(got, "provenance", k) != hStr(origin, "provenance", k) {
				t.Errorf("%s: provenance %s = %q, the origin has %q", how, k, hStr(got, "provenance", k), hStr(origin, "provenance", k))
			}
		}
	}
	e2 := e.withHome("fh2")
	e2.ok("plugins", "install", "oci://"+reg.Host+"/team/fledge-plugin-sg:1.0.0", "--yes", "--json")
	same(e2, "installed from the mirror")

	reg.Stop()
	if err := os.RemoveAll(r.Dir); err != nil { // offline: the origin is gone too
		t.Fatal(err)
	}
	e3 := e.withHome("fh3")
	e3.ok("plugins", "sync", "--file", team, "--from", bundle, "--yes", "--json")
	same(e3, "synced from the bundle")
	if r := e3.ok("sg"); strings.TrimSpace(string(r.out)) != "sg 1.0.0" {
		t.Fatalf("the synced command printed %q", r.out)
	}
}

//go:build unix

package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/corvidlabs/fledge-go/ociartifact"
)

// mirror pushes what a git install installed to PREFIX/<name>, tagged
// with its version and commit; another machine installs it from there and
// sees the origin. bundle writes the same to a layout, from which sync
// installs offline exactly what a plugins.toml records, and nothing else.
func TestMirrorAndBundle(t *testing.T) {
	t.Parallel()
	e, reg := ociEnv(t)
	commit := e.repo("fledge-plugin-mx", hPlugin("fledge-plugin-mx", "1.2.0", ""))
	e.ok("plugins", "install", "o/fledge-plugin-mx", "--yes", "--json")
	origin := hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-mx", "plugins")

	doc := hJSON(t, e.ok("plugins", "mirror", "--to", "oci://"+reg.Host+"/team", "--json"))
	res := hGet(doc, "results", 0)
	digest := hStr(res, "digest")
	if hStr(res, "where") != "oci://"+reg.Host+"/team/fledge-plugin-mx" || !strings.HasPrefix(digest, "sha256:") {
		t.Fatalf("mirror: %v", doc)
	}
	// Both tags name the manifest, read by plain oras-go.
	plain, err := remote.NewRepository(reg.Host + "/team/fledge-plugin-mx")
	if err != nil {
		t.Fatal(err)
	}
	plain.PlainHTTP = true
	plain.Client = &auth.Client{Client: reg.HTTP, Credential: auth.StaticCredential(reg.Host, auth.Credential{Username: "ci", Password: "s3cret"})}
	for _, tag := range []string{"1.2.0", commit} {
		d, err := plain.Resolve(context.Background(), tag)
		if err != nil || d.Digest.String() != digest {
			t.Fatalf("tag %s: %v %v, want %s", tag, d.Digest, err, digest)
		}
	}
	p, err := ociartifact.Resolve(context.Background(), plain, "1.2.0", ociartifact.Limits{})
	if err != nil || p.Info.Commit != commit || p.Info.Source != hStr(origin, "url") || p.Info.TreeHash == "" {
		t.Fatalf("annotations: %+v %v", p, err)
	}

	e2 := e.withHome("fh2")
	e2.ok("plugins", "install", "oci://"+reg.Host+"/team/fledge-plugin-mx:1.2.0", "--yes", "--json")
	got := hByName(hJSON(t, e2.ok("plugins", "list", "--json")), "fledge-plugin-mx", "plugins")
	if hStr(got, "origin") != hStr(origin, "url") || hStr(got, "commit") != commit || hStr(got, "tree_hash") != hStr(origin, "tree_hash") {
		t.Fatalf("installed from the mirror: %v\norigin: %v", got, origin)
	}

	// A bundle, and an offline sync from it.
	bundle := filepath.Join(e.work, "bundle")
	e.ok("plugins", "bundle", "--out", bundle, "--json")
	if _, err := os.Stat(filepath.Join(bundle, "oci-layout")); err != nil {
		t.Fatalf("bundle is not an OCI image layout: %v", err)
	}
	team := filepath.Join(e.work, "team.toml")
	os.WriteFile(team, e.pluginsToml(), 0o644)
	reg.Stop()
	os.RemoveAll(filepath.Join(e.gh, "o", "fledge-plugin-mx")) // offline: the origin is gone too
	e3 := e.withHome("fh3")
	e3.ok("plugins", "sync", "--file", team, "--from", bundle, "--yes", "--json")
	got = hByName(hJSON(t, e3.ok("plugins", "list", "--json")), "fledge-plugin-mx", "plugins")
	for _, k := range []string{"source", "url", "commit", "tree_hash", "kind"} {
		if hStr(got, k) != hStr(origin, k) {
			t.Errorf("synced from the bundle: %s = %q, the origin machine has %q", k, hStr(got, k), hStr(origin, k))
		}
	}
	if r := e3.ok("mx"); strings.TrimSpace(string(r.out)) != "mx 1.2.0" {
		t.Fatalf("the synced command printed %q", r.out)
	}

	// A bundle whose tree is not the one the file records is refused,
	// naming both hashes.
	data := string(e.pluginsToml())
	srcHash := between(data, "source_hash = '", "'")
	if srcHash == "" {
		srcHash = between(data, `source_hash = "`, `"`)
	}
	forged := strings.Replace(data, srcHash, "fh1:"+strings.Repeat("0", 64), 1)
	os.WriteFile(team, []byte(forged), 0o644)
	e4 := e.withHome("fh4")
	r := e4.run("plugins", "sync", "--file", team, "--from", bundle, "--yes", "--json")
	if r.code == 0 || !strings.Contains(string(r.out), srcHash) || !strings.Contains(string(r.out), strings.Repeat("0", 64)) {
		t.Fatalf("a bundle that does not match the file\n%v", r)
	}
	if len(e4.entries()) != 0 {
		t.Fatalf("a refused sync installed: %s", e4.pluginsToml())
	}
}

func between(s, start, end string) string {
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, end)
	return v
}

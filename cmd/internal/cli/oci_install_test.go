//go:build unix

package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/ociartifact/ocitest"
)

// ociEnv is a machine with a registry on loopback that requires the
// credentials its docker configuration holds.
func ociEnv(t *testing.T) (*hEnv, *ocitest.Registry) {
	t.Helper()
	e := newHEnv(t)
	reg := ocitest.Start(t, ocitest.Options{User: "ci", Password: "s3cret"})
	data, err := os.ReadFile(reg.DockerConfig)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteTree(t, filepath.Join(e.work, "home", ".docker"), map[string]string{"config.json": string(data)})
	return e, reg
}

// pushTree publishes files as an artifact at reg/repo, tagged tags.
func pushTree(t *testing.T, reg *ocitest.Registry, repo string, files map[string]string, info ociartifact.Info, tags ...string) string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteTree(t, dir, files)
	os.Chmod(filepath.Join(dir, "bin", strings.TrimPrefix(info.Name, "fledge-plugin-")), 0o755)
	r := &ociartifact.Remote{HTTP: reg.HTTP, DockerConfig: reg.DockerConfig}
	target, err := r.Repository(context.Background(), reg.Host, repo)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := ociartifact.Push(context.Background(), target, dir, info, tags, ociartifact.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return desc.Digest.String()
}

// An OCI install is an install: approved, recorded with its digest and
// origin, run, verified, updated by tag, synced elsewhere by digest.
func TestInstallFromOCIRegistry(t *testing.T) {
	t.Parallel()
	e, reg := ociEnv(t)
	commit := strings.Repeat("c", 40)
	info := ociartifact.Info{Name: "fledge-plugin-oc", Version: "1.0.0", Source: "https://github.com/o/fledge-plugin-oc", Commit: commit}
	d1 := pushTree(t, reg, "p/fledge-plugin-oc", hPlugin("fledge-plugin-oc", "1.0.0", ""), info, "1.0.0")
	src := "oci://" + reg.Host + "/p/fledge-plugin-oc"

	e.ok("plugins", "install", src+":1.0.0", "--yes", "--json")
	p := hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-oc", "plugins")
	for k, want := range map[string]string{"kind": "oci", "oci_digest": d1, "origin": info.Source, "commit": commit, "source": src, "url": src, "ref_kind": "tag", "pinned_ref": "1.0.0"} {
		if got := hStr(p, k); got != want {
			t.Errorf("list: %s = %q, want %q", k, got, want)
		}
	}
	if !strings.HasPrefix(hStr(p, "tree_hash"), "fh1:") {
		t.Errorf("list: tree_hash %q", hStr(p, "tree_hash"))
	}
	if r := e.ok("oc"); strings.TrimSpace(string(r.out)) != "oc 1.0.0" {
		t.Fatalf("the installed command printed %q", r.out)
	}
	e.ok("plugins", "verify", "oc")
	if r := e.ok("plugins", "info", "oc"); !strings.Contains(string(r.out), info.Source) || !strings.Contains(string(r.out), d1) {
		t.Errorf("info does not show the origin and the digest\n%v", r)
	}

	// A newer version tag is reported, and taken when pins move.
	info2 := info
	info2.Version = "1.1.0"
	d2 := pushTree(t, reg, "p/fledge-plugin-oc", hPlugin("fledge-plugin-oc", "1.1.0", ""), info2, "1.1.0")
	r := e.ok("plugins", "update", "--json")
	if !strings.Contains(string(r.out), "1.1.0") {
		t.Fatalf("update does not report the newer tag\n%v", r)
	}
	// The tag it is pinned to, moved to another manifest, is refused.
	pushTree(t, reg, "p/fledge-plugin-oc", hPlugin("fledge-plugin-oc", "1.0.0", "# moved\n"), info, "1.0.0")
	r = e.run("plugins", "update", "oc", "--json")
	if r.code == 0 || !strings.Contains(string(r.out), "tag moved") {
		t.Fatalf("update over a moved tag\n%v", r)
	}
	if got := hStr(hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-oc", "plugins"), "oci_digest"); got != d1 {
		t.Fatalf("a refused update changed the digest to %s", got)
	}

	// A digest pin installs exactly that manifest.
	e.ok("plugins", "install", src+"@"+d2, "--yes", "--force", "--json")
	p = hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-oc", "plugins")
	if hStr(p, "oci_digest") != d2 || hStr(p, "ref_kind") != "digest" || hStr(p, "version") != "1.1.0" {
		t.Fatalf("digest pin: %v", p)
	}

	// Another machine syncs the same digest from the plugins.toml.
	file := filepath.Join(e.work, "team.toml")
	os.WriteFile(file, e.pluginsToml(), 0o644)
	e2 := e.withHome("fh2")
	e2.ok("plugins", "sync", "--file", file, "--yes", "--json")
	if got := hStr(hByName(hJSON(t, e2.ok("plugins", "list", "--json")), "fledge-plugin-oc", "plugins"), "oci_digest"); got != d2 {
		t.Fatalf("synced digest %s, want %s", got, d2)
	}
}

// Nothing is installed when the registry is down or refuses the
// credentials, and the error says which registry.
func TestInstallFromOCIFailsCleanly(t *testing.T) {
	t.Parallel()
	e, reg := ociEnv(t)
	info := ociartifact.Info{Name: "fledge-plugin-oc", Version: "1.0.0"}
	pushTree(t, reg, "p/fledge-plugin-oc", hPlugin("fledge-plugin-oc", "1.0.0", ""), info, "1.0.0")
	src := "oci://" + reg.Host + "/p/fledge-plugin-oc:1.0.0"

	os.Remove(filepath.Join(e.work, "home", ".docker", "config.json"))
	r := e.run("plugins", "install", src, "--yes")
	if r.code == 0 || !strings.Contains(string(r.err), reg.Host) || !strings.Contains(string(r.err), "docker login") {
		t.Fatalf("install without credentials\n%v", r)
	}
	reg.Stop()
	r = e.run("plugins", "install", src, "--yes")
	if r.code == 0 || !strings.Contains(string(r.err), "connection refused") {
		t.Fatalf("install from a registry that is down\n%v", r)
	}
	if len(e.entries()) != 0 {
		t.Fatalf("a failed install left entries: %s", e.pluginsToml())
	}
	if ents, _ := os.ReadDir(filepath.Join(e.fh, "plugins")); len(ents) != 0 {
		t.Fatalf("a failed install left plugin directories: %v", ents)
	}
}

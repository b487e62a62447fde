//go:build unix

package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/ociartifact"
)

// A mirror rule sends fetches of an origin to its mirror: install, sync
// and update fetch from there while the record names the origin, and what
// the mirror serves must be what the plugins.toml records.
func TestFetchThroughMirrorRules(t *testing.T) {
	t.Parallel()
	e, reg := ociEnv(t)
	commit := e.repo("fledge-plugin-mr", hPlugin("fledge-plugin-mr", "1.0.0", ""))
	e.ok("plugins", "install", "o/fledge-plugin-mr", "--yes", "--json")
	origin := hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-mr", "plugins")
	e.ok("plugins", "mirror", "--to", "oci://"+reg.Host+"/mirror/o", "--json")
	team := filepath.Join(e.work, "team.toml")
	os.WriteFile(team, e.pluginsToml(), 0o644)
	gitMirror := filepath.Join(e.work, "gitmirror", "o")
	os.MkdirAll(gitMirror, 0o755)
	if out, err := exec.Command("cp", "-r", filepath.Join(e.gh, "o", "fledge-plugin-mr"), gitMirror).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(e.gh, "o")) // the origin is unreachable from here on

	withMirror := func(name, to string) *hEnv {
		m := e.withHome(name)
		testutil.WriteTree(t, m.fh, map[string]string{"config.toml": fmt.Sprintf("[policy.mirrors]\n%q = %q\n", "file://"+e.gh+"/o/*", to)})
		return m
	}
	ociMirror := "oci://" + reg.Host + "/mirror/o/*"

	// install through the OCI mirror: the record is the origin's.
	e2 := withMirror("fh2", ociMirror)
	r := e2.ok("plugins", "install", "o/fledge-plugin-mr", "--yes", "--json")
	if !strings.Contains(string(r.err), "from its mirror oci://"+reg.Host+"/mirror/o/fledge-plugin-mr") {
		t.Errorf("install does not say it fetched from the mirror\n%v", r)
	}
	got := hByName(hJSON(t, e2.ok("plugins", "list", "--json")), "fledge-plugin-mr", "plugins")
	for _, k := range []string{"source", "url", "commit", "tree_hash", "kind"} {
		if hStr(got, k) != hStr(origin, k) {
			t.Errorf("installed through the mirror: %s = %q, the origin's is %q", k, hStr(got, k), hStr(origin, k))
		}
	}
	if hStr(got, "mirror") != "oci://"+reg.Host+"/mirror/o/fledge-plugin-mr" || hStr(got, "commit") != commit {
		t.Errorf("installed through the mirror: %v", got)
	}
	// update asks the mirror, which has nothing newer.
	if r := e2.ok("plugins", "update", "--json"); !strings.Contains(string(r.out), "up_to_date") {
		t.Errorf("update through the mirror\n%v", r)
	}

	// sync through the OCI mirror: exactly the recorded commit and tree.
	e3 := withMirror("fh3", ociMirror)
	e3.ok("plugins", "sync", "--file", team, "--yes", "--json")
	if got := hByName(hJSON(t, e3.ok("plugins", "list", "--json")), "fledge-plugin-mr", "plugins"); hStr(got, "tree_hash") != hStr(origin, "tree_hash") {
		t.Errorf("synced through the mirror: %v", got)
	}

	// sync through a git mirror.
	e4 := withMirror("fh4", "file://"+gitMirror+"/*")
	e4.ok("plugins", "sync", "--file", team, "--yes", "--json")
	got = hByName(hJSON(t, e4.ok("plugins", "list", "--json")), "fledge-plugin-mr", "plugins")
	if hStr(got, "commit") != commit || hStr(got, "url") != hStr(origin, "url") || !strings.Contains(hStr(got, "mirror"), "gitmirror") {
		t.Errorf("synced through the git mirror: %v", got)
	}

	// A mirror serving another tree for the commit is refused, naming
	// both hashes, and nothing is installed.
	info := ociartifact.Info{Name: "fledge-plugin-mr", Version: "1.0.0", Source: hStr(origin, "url"), Commit: commit}
	pushTree(t, reg, "mirror/o/fledge-plugin-mr", hPlugin("fledge-plugin-mr", "1.0.0", "# not the origin's\n"), info, commit)
	e5 := withMirror("fh5", ociMirror)
	r = e5.run("plugins", "sync", "--file", team, "--yes", "--json")
	srcHash := between(string(e.pluginsToml()), "source_hash = '", "'")
	if r.code == 0 || srcHash == "" || !strings.Contains(string(r.out), srcHash) || !strings.Contains(string(r.out), "not the recorded") {
		t.Fatalf("a mirror serving another tree\n%v", r)
	}
	if len(e5.entries()) != 0 {
		t.Fatalf("a refused sync installed: %s", e5.pluginsToml())
	}
}

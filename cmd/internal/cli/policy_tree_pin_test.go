package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/treehash"
)

// A source rule pinned to a tree (pattern@tree:fh1:…) lets in only that
// content of that repository, whatever commit holds it: other content is
// fetched (its hash is not known before), refused before anything in it is
// built or recorded (install and update leave plugins.toml and the
// installed tree as they were), a record whose source_hash the rule no
// longer names does not run, and a sync of such a record is refused
// before any request, on the hash it records.
func TestPolicyPinnedTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := newE2ERepo(t, filepath.Join(root, "acme", "fledge-plugin-x"))
	repo.commit(t, e2ePluginToml("x", "1.0.0"), "v1.0.0")
	hashOf := func() string {
		t.Helper()
		h, err := treehash.Hash(repo.dir, treehash.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return h.Hash
	}
	treeA := hashOf()
	git := newGitServer(t, root)
	host := git.srv.Listener.Addr().String()
	url := "http://" + host + "/acme/fledge-plugin-x"

	pol := filepath.Join(t.TempDir(), "policy.toml")
	pin := func(tree string) {
		t.Helper()
		if err := os.WriteFile(pol, []byte(fmt.Sprintf("[sources]\nallow = [%q]\n", host+"/acme/fledge-plugin-x@tree:"+tree)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pin(treeA)
	f := newE2EFixture(t)
	f.env["FLEDGE_POLICY"] = pol
	lock := filepath.Join(f.env["FLEDGE_HOME"], "plugins.toml")

	if code, out, errOut := f.fledge("plugins", "install", "--yes", url); code != 0 {
		t.Fatalf("install of the pinned tree: exit %d\n%s\n%s", code, out, errOut)
	}
	recorded, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(recorded), "source_hash = '"+treeA+"'") {
		t.Fatalf("plugins.toml does not record the pinned tree %s as source_hash:\n%s", treeA, recorded)
	}
	if code, out, errOut := f.fledge("x"); code != 0 || !strings.Contains(out, "x 1.0.0") {
		t.Fatalf("run of the pinned tree: exit %d\n%s\n%s", code, out, errOut)
	}

	// Other content on the branch: fetched, hashed, refused; nothing
	// changes.
	repo.commit(t, e2ePluginToml("x", "1.1.0"), "v1.1.0")
	treeB := hashOf()
	code, out, errOut := f.fledge("plugins", "update", "x", "--json")
	if code != ExitFailure || !strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, "with tree "+treeB) {
		t.Fatalf("update to other content: exit %d (want policy_denied naming tree %s)\n%s\n%s", code, treeB, out, errOut)
	}
	if now, _ := os.ReadFile(lock); !bytes.Equal(now, recorded) {
		t.Fatalf("a refused update changed plugins.toml:\n%s", now)
	}
	if code, out, _ := f.fledge("x"); code != 0 || !strings.Contains(out, "x 1.0.0") {
		t.Fatalf("after a refused update the installed plugin is not the pinned one: exit %d\n%s", code, out)
	}

	// A fresh install of the other content: refused, nothing installed.
	g := newE2EFixture(t)
	g.env["FLEDGE_POLICY"] = pol
	code, out, _ = g.fledge("plugins", "install", "--json", "--yes", url+"@v1.1.0")
	if code != ExitFailure || !strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, "@tree:"+treeA) {
		t.Fatalf("install of other content: exit %d (want policy_denied quoting the pin)\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(g.env["FLEDGE_HOME"], "plugins.toml")); !os.IsNotExist(err) {
		t.Errorf("a refused install wrote plugins.toml (%v)", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(g.env["FLEDGE_HOME"], "plugins")); len(entries) > 0 {
		t.Errorf("a refused install left %d entries in plugins/", len(entries))
	}

	// The pinned content at another commit passes: the pin is content.
	repo.commit(t, e2ePluginToml("x", "1.0.0"), "")
	if got := hashOf(); got != treeA {
		t.Fatalf("the restored tree hashes to %s, not %s", got, treeA)
	}
	if code, out, errOut := f.fledge("plugins", "update", "x"); code != 0 {
		t.Fatalf("update to the pinned tree at a new commit: exit %d\n%s\n%s", code, out, errOut)
	}

	// The administrator moves the pin: the installed tree does not run,
	// and a sync of it is refused before any request.
	pin(treeB)
	code, out, errOut = f.fledge("plugins", "run", "x", "--json")
	if code == 0 || !strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, "with tree "+treeA) {
		t.Fatalf("run after the pin moved: exit %d (want policy_denied naming tree %s)\n%s\n%s", code, treeA, out, errOut)
	}
	git.counts()
	other := newE2EFixture(t)
	other.env["FLEDGE_POLICY"] = pol
	code, out, _ = other.fledge("plugins", "sync", "--file", lock, "--yes", "--json")
	if refs, fetch := git.counts(); code == 0 || !strings.Contains(out, "policy_denied") || refs+fetch != 0 {
		t.Fatalf("sync of the old tree: exit %d, %d ref listings, %d fetches (want policy_denied and none)\n%s", code, refs, fetch, out)
	}
	if len(git.otherRequest) > 0 {
		t.Errorf("unexpected requests: %v", git.otherRequest)
	}
}

package gitfetch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A file:// checkout of a branch or tag is depth 1, as over the network:
// the commit and its tree arrive, its history does not, and the clone
// records the commit as its shallow boundary.
func TestCheckoutFileIsShallow(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	refs, err := ListRefs(context.Background(), f.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ref, tip, commit string }{
		{"", "c4", f.commits["c4"].String()},
		{"v2", "c2", f.commits["c2"].String()}, // an annotated tag
	} {
		rev, err := Resolve(refs, tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "tree")
		got, err := Checkout(context.Background(), f.url, rev, dir, Options{})
		if err != nil || got != tc.commit {
			t.Fatalf("Checkout(%q) = %s, %v; want %s", tc.ref, got, err, tc.commit)
		}
		shallow, err := os.ReadFile(filepath.Join(dir, ".git", "shallow"))
		if err != nil || strings.TrimSpace(string(shallow)) != tc.commit {
			t.Errorf("%q: .git/shallow = %q, %v; want %s", tc.ref, shallow, err, tc.commit)
		}
		repo, err := git.PlainOpen(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := object.GetCommit(repo.Storer, f.commits["c1"]); err == nil {
			t.Errorf("%q: the clone holds history (c1)", tc.ref)
		}
		c, err := repo.CommitObject(f.commits[tc.tip])
		if err != nil {
			t.Fatalf("%q: tip commit missing: %v", tc.ref, err)
		}
		if _, err := c.Tree(); err != nil {
			t.Errorf("%q: tip tree missing: %v", tc.ref, err)
		}
		if _, err := object.GetCommit(repo.Storer, c.ParentHashes[0]); err == nil {
			t.Errorf("%q: parent %s arrived in a depth-1 clone", tc.ref, c.ParentHashes[0])
		}
	}
}

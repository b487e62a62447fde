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

// A checkout of a branch or tag over the network is depth 1: the commit
// and its tree arrive, its history does not, and the clone records the
// commit as its shallow boundary. From a repository on disk nothing is
// cloned: .git records the commit (and the tag) alone, with the same
// shallow boundary, and the files were read from the source.
func TestCheckoutIsShallow(t *testing.T) {
	t.Parallel()
	f, tagObj := pluginRepo(t)
	remote := gitProtocolServer(t, f.dir, pace{})
	for _, url := range []string{remote, f.url} {
		local := url == f.url
		refs, err := ListRefs(context.Background(), url, Options{})
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
			got, err := Checkout(context.Background(), url, rev, dir, Options{})
			if err != nil || got != tc.commit {
				t.Fatalf("%s: Checkout(%q) = %s, %v; want %s", url, tc.ref, got, err, tc.commit)
			}
			shallow, err := os.ReadFile(filepath.Join(dir, ".git", "shallow"))
			if err != nil || strings.TrimSpace(string(shallow)) != tc.commit {
				t.Errorf("%s %q: .git/shallow = %q, %v; want %s", url, tc.ref, shallow, err, tc.commit)
			}
			repo, err := git.PlainOpen(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := object.GetCommit(repo.Storer, f.commits["c1"]); err == nil {
				t.Errorf("%s %q: the clone holds history (c1)", url, tc.ref)
			}
			c, err := repo.CommitObject(f.commits[tc.tip])
			if err != nil {
				t.Fatalf("%s %q: tip commit missing: %v", url, tc.ref, err)
			}
			if _, err := object.GetCommit(repo.Storer, c.ParentHashes[0]); err == nil {
				t.Errorf("%s %q: parent %s arrived in a depth-1 clone", url, tc.ref, c.ParentHashes[0])
			}
			if head, err := repo.Head(); err != nil || head.Hash().String() != tc.commit {
				t.Errorf("%s %q: HEAD = %v, %v; want %s", url, tc.ref, head, err, tc.commit)
			}
			if tc.ref == "v2" {
				if _, err := repo.TagObject(tagObj); err != nil {
					t.Errorf("%s: the tag object is not recorded: %v", url, err)
				}
			}
			_, err = c.Tree()
			if local == (err == nil) {
				t.Errorf("%s %q: tree in .git: %v (a local source's is read in place, a clone's arrives)", url, tc.ref, err)
			}
		}
	}
}

package gitfetch

import (
	"context"
	"path/filepath"
	"testing"
)

// CheckoutFrom tells a branch that moved forward from one that was
// rewritten or moved back, with the whole history fetched.
func TestCheckoutFromAncestry(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t) // main c1 → c2 → c4; dev c2 → c3
	refs, err := ListRefs(context.Background(), f.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref, since string
		want       bool
	}{
		{"main", "c4", true},  // unchanged
		{"main", "c2", true},  // fast-forward over two commits
		{"main", "c1", true},  // from the root
		{"main", "c3", false}, // c3 is on dev only: main does not descend from it
		{"dev", "c4", false},  // moved back and sideways
		{"dev", "c1", true},
	} {
		rev, err := Resolve(refs, tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "tree")
		commit, descends, err := CheckoutFrom(context.Background(), f.url, rev, dir, Options{}, f.commits[tc.since].String())
		if err != nil {
			t.Fatalf("%s from %s: %v", tc.ref, tc.since, err)
		}
		if commit != rev.Commit {
			t.Errorf("%s: checked out %s, want %s", tc.ref, commit, rev.Commit)
		}
		if descends != tc.want {
			t.Errorf("%s from %s: descends = %v, want %v", tc.ref, tc.since, descends, tc.want)
		}
	}
	// A commit the remote never had does not descend.
	rev, _ := Resolve(refs, "main")
	_, descends, err := CheckoutFrom(context.Background(), f.url, rev, filepath.Join(t.TempDir(), "tree"), Options{}, "0123456789abcdef0123456789abcdef01234567")
	if err != nil || descends {
		t.Errorf("from an unknown commit: descends = %v, %v", descends, err)
	}
}

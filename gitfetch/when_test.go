package gitfetch

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Made reads an annotated tag's tagger date, and for a lightweight tag (or
// any other revision) the commit's committer date, from a checkout.
func TestMade(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c1 := f.commit(t, "c1", map[string]string{"VERSION": "1"}) // committed at sig.When
	f.lightTag(t, "light", c1)
	tagged := time.Date(2026, 3, 3, 3, 3, 3, 0, time.UTC)
	if _, err := f.repo.CreateTag("annotated", c1, &git.CreateTagOptions{
		Tagger: &object.Signature{Name: "t", Email: "t@example.com", When: tagged}, Message: "release"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	refs, err := ListRefs(ctx, f.url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]time.Time{"annotated": tagged, "light": sig.When, "main": sig.When, c1.String(): sig.When} {
		rev, err := Resolve(refs, ref)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "tree")
		commit, err := Checkout(ctx, f.url, rev, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Made(dir, rev, commit)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: made %v (%v), want %v", ref, got, err, want)
		}
	}
}

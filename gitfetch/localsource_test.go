package gitfetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// checkoutRef lists url's refs, resolves ref and checks it out into a new
// directory, which it returns with the commit.
func checkoutRef(t *testing.T, ctx context.Context, url, ref string, o Options) (string, string, error) {
	t.Helper()
	refs, err := ListRefs(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := Resolve(refs, ref)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	commit, err := Checkout(ctx, url, rev, dir, o)
	return dir, commit, err
}

// looseObject is the file holding object h in the fixture's repository.
func looseObject(f *fixture, h plumbing.Hash) string {
	s := h.String()
	return filepath.Join(f.dir, ".git", "objects", s[:2], s[2:])
}

// A bare commit (no ref names it) is found among what the source's
// branches and tags reach, as a clone of them would find it, and nowhere
// else: a commit only another kind of ref reaches is not found, from disk
// as over the network.
func TestLocalCheckoutBareCommit(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	head := f.commits["c4"]
	wt, err := f.repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := wt.Commit("hidden", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		t.Fatal(err)
	}
	// Only refs/custom/x reaches it; main goes back to c4.
	for _, r := range []*plumbing.Reference{
		plumbing.NewHashReference("refs/custom/x", hidden),
		plumbing.NewHashReference(plumbing.NewBranchReferenceName("main"), head),
	} {
		if err := f.repo.Storer.SetReference(r); err != nil {
			t.Fatal(err)
		}
	}
	remote := gitProtocolServer(t, f.dir, pace{})
	for _, url := range []string{remote, f.url} {
		for _, ref := range []string{hidden.String(), hidden.String()[:9]} {
			_, _, err := checkoutRef(t, context.Background(), url, ref, Options{})
			if !errors.Is(err, ErrRefNotFound) {
				t.Errorf("%s: commit %s reached only by refs/custom/x: %v, want ErrRefNotFound", url, ref, err)
			}
		}
		for _, ref := range []string{f.commits["c3"].String()[:8], f.commits["c1"].String()} {
			if _, got, err := checkoutRef(t, context.Background(), url, ref, Options{}); err != nil || !strings.HasPrefix(got, ref) {
				t.Errorf("%s: commit %s = %s, %v", url, ref, got, err)
			}
		}
	}
}

// A ref deleted between listing and fetching is reported as not found.
func TestLocalCheckoutRefGone(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	rev := revisionOf(t, f.url, "dev")
	if err := f.repo.Storer.RemoveReference(rev.RefName); err != nil {
		t.Fatal(err)
	}
	_, err := Checkout(context.Background(), f.url, rev, filepath.Join(t.TempDir(), "t"), Options{})
	if !errors.Is(err, ErrRefNotFound) || !strings.Contains(err.Error(), "deleted while fetching") {
		t.Errorf("Checkout of a deleted branch = %v, want ErrRefNotFound", err)
	}
}

// A source that lacks an object of the revision (a partial clone, a
// damaged repository) is refused with what is wrong and how to fix it,
// whether the tree or a file is missing; a shallow source installs what it
// has.
func TestLocalCheckoutMissingObjects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c1 := f.commit(t, "c1", map[string]string{"old": "1"})
	f.commit(t, "c2", map[string]string{"VERSION": "2", "lib/a": "a", "lib/b": "b"})
	c, err := f.repo.CommitObject(f.commits["c2"])
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	file, err := tree.FindEntry("lib/b")
	if err != nil {
		t.Fatal(err)
	}
	// Shallow at c2, and c1 gone as a shallow clone lacks it.
	if err := os.WriteFile(filepath.Join(f.dir, ".git", "shallow"), []byte(c.Hash.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(looseObject(f, c1)); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"main", c.Hash.String()[:10]} {
		if _, got, err := checkoutRef(t, context.Background(), f.url, ref, Options{}); err != nil || got != c.Hash.String() {
			t.Errorf("shallow source, %s: %s, %v; want %s", ref, got, err, c.Hash)
		}
	}
	if _, _, err := checkoutRef(t, context.Background(), f.url, c1.String(), Options{}); !errors.Is(err, ErrRefNotFound) {
		t.Errorf("a commit beyond the shallow boundary: %v, want ErrRefNotFound", err)
	}

	if err := os.Remove(looseObject(f, file.Hash)); err != nil {
		t.Fatal(err)
	}
	_, _, err = checkoutRef(t, context.Background(), f.url, "main", Options{})
	if !errors.Is(err, plumbing.ErrObjectNotFound) || !strings.Contains(err.Error(), "lacks objects") || !strings.Contains(err.Error(), "git fetch --unshallow") {
		t.Errorf("a missing file: %v, want it named with the fix", err)
	}
	if err := os.Remove(looseObject(f, tree.Hash)); err != nil {
		t.Fatal(err)
	}
	_, _, err = checkoutRef(t, context.Background(), f.url, "main", Options{})
	if !errors.Is(err, plumbing.ErrObjectNotFound) || !strings.Contains(err.Error(), "lacks objects") {
		t.Errorf("a missing tree: %v, want it named with the fix", err)
	}
}

// countdown is a context that is cancelled at its n-th check, so a
// checkout is interrupted part way through, whatever the machine's speed.
type countdown struct {
	context.Context
	n    atomic.Int64
	once sync.Once
	done chan struct{}
}

func newCountdown(n int64) *countdown {
	c := &countdown{Context: context.Background(), done: make(chan struct{})}
	c.n.Store(n)
	return c
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	return nil
}

func (c *countdown) Done() <-chan struct{} { return c.done }

// A cancelled checkout from disk stops: before anything is read when the
// context is already done, and part way through writing the files when it
// is cancelled then, as an interrupt (context.Canceled).
func TestLocalCheckoutCancel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	files := map[string]string{"plugin.toml": "[plugin]\nname = \"p\"\n"}
	for i := range 100 {
		files[filepath.Join("data", string(rune('a'+i%26)), strings.Repeat("f", 1+i/26))] = randomText(100)
	}
	f.commit(t, "c", files)
	rev := revisionOf(t, f.url, "")
	count := func(dir string) int {
		n := 0
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d != nil && d.Type().IsRegular() {
				n++
			}
			return nil
		})
		return n
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := Checkout(ctx, f.url, rev, dir, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Checkout with a cancelled context = %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled checkout wrote %s: %v", dir, err)
	}

	// Resolving and bounding the tree take about one check a file; writing
	// it about three.
	dir = filepath.Join(t.TempDir(), "tree")
	_, err := Checkout(newCountdown(250), f.url, rev, dir, Options{})
	var te *TimeoutError
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Errorf("Checkout cancelled part way = %v, want context.Canceled", err)
	}
	if n := count(dir); n >= len(files) {
		t.Errorf("the cancelled checkout wrote all %d files", n)
	} else {
		t.Logf("%d of %d files written before the cancel", n, len(files))
	}
}

//go:build unix

package gitfetch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// openHead opens dir's repository and resolves its HEAD, failing the test
// if that blocks.
func openHead(t *testing.T, dir string) (*git.Repository, plumbing.Hash, error) {
	t.Helper()
	type result struct {
		r    *git.Repository
		head plumbing.Hash
		err  error
	}
	c := make(chan result, 1)
	go func() {
		r, err := OpenLocal(dir)
		if err != nil {
			c <- result{err: err}
			return
		}
		head, err := r.Head()
		if err != nil {
			c <- result{err: err}
			return
		}
		c <- result{r, head.Hash(), nil}
	}()
	select {
	case res := <-c:
		return res.r, res.head, res.err
	case <-time.After(20 * time.Second):
		t.Fatal("opening the repository blocked")
		return nil, plumbing.ZeroHash, nil
	}
}

// A repository fledge does not control is opened as go-git would open it,
// from any directory inside it, but a named pipe where git expects a file
// is refused at once rather than waited on.
func TestOpenLocal(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	want := f.commits["c4"]
	sub := filepath.Join(f.dir, "deep", "er")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, head, err := openHead(t, sub); err != nil || head != want {
		t.Fatalf("Head = %v, %v; want %s", head, err, want)
	}

	for _, name := range []string{"HEAD", "config", "refs/heads/main"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := newFixture(t)
			g.commit(t, "c", map[string]string{"f": "x"})
			p := filepath.Join(g.dir, ".git", filepath.FromSlash(name))
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := openHead(t, g.dir); err == nil {
				t.Errorf("a named pipe at .git/%s read as a repository", name)
			}
		})
	}
}

// A linked worktree (.git is a file naming its git directory, whose
// commondir names the main repository's) opens at its own HEAD.
func TestOpenLocalLinkedWorktree(t *testing.T) {
	t.Parallel()
	f, _ := pluginRepo(t)
	c1 := f.commits["c1"]
	admin := filepath.Join(f.dir, ".git", "worktrees", "wt")
	wt := filepath.Join(t.TempDir(), "wt")
	for path, data := range map[string]string{
		filepath.Join(admin, "HEAD"):      c1.String() + "\n",
		filepath.Join(admin, "commondir"): "../..\n",
		filepath.Join(admin, "gitdir"):    filepath.Join(wt, ".git") + "\n",
		filepath.Join(wt, ".git"):         "gitdir: " + admin + "\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, head, err := openHead(t, wt)
	if err != nil || head != c1 {
		t.Fatalf("Head = %v, %v; want %s", head, err, c1)
	}
	if _, err := r.CommitObject(c1); err != nil {
		t.Errorf("objects of the main repository: %v", err)
	}
}

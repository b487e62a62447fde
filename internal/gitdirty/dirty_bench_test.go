package gitdirty

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/go-git/go-git/v5"
)

// benchRepo builds a clean repository of n small files in 50 directories
// with the git CLI (go-git would take minutes to add 5,000 files), dated an
// hour back so that, as in a real checkout, no entry is racily clean.
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	dtEnv(b)
	gitCmd := func(args ...string) {
		if _, err := dtGit(dir, args...); err != nil {
			b.Fatal(err)
		}
	}
	gitCmd("init", "-q", "-b", "main")
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%50), "file"+strconv.Itoa(i)+".txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("line %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, dtOld, dtOld); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("/build/\n*.log\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	gitCmd("add", "-A")
	gitCmd("commit", "-q", "-m", "init")
	return dir
}

func openBench(b *testing.B, dir string) *git.Repository {
	b.Helper()
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkDirty: Dirty on a clean repository, the case that reads the
// most (a dirty one stops at the first difference).
func BenchmarkDirty(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			r := openBench(b, benchRepo(b, n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if dirty, err := Dirty(r); dirty || err != nil {
					b.Fatal(dirty, err)
				}
			}
		})
	}
}

// BenchmarkGoGitStatus: the answer go-git's Worktree.Status gives, which
// fledge used before.
func BenchmarkGoGitStatus(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			r := openBench(b, benchRepo(b, n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if dirty, err := goGitDirty(mustWorktree(b, r)); dirty || err != nil {
					b.Fatal(dirty, err)
				}
			}
		})
	}
}

// BenchmarkGitStatusPorcelain: the git CLI's answer, which the Rust fledge
// runs (process start included, as it pays it).
func BenchmarkGitStatusPorcelain(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			dir := benchRepo(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := exec.Command("git", "status", "--porcelain")
				c.Dir = dir
				out, err := c.Output()
				if err != nil || len(out) != 0 {
					b.Fatalf("git status: %v %q", err, out)
				}
			}
		})
	}
}

func mustWorktree(b *testing.B, r *git.Repository) *git.Worktree {
	wt, err := r.Worktree()
	if err != nil {
		b.Fatal(err)
	}
	return wt
}

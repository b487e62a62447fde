package gitstate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// benchRepo is a clean repository of n small files in 50 directories,
// dated an hour back so that, as in a real checkout, no entry is racily
// clean.
func benchRepo(b *testing.B, n int) (string, []string) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	old := time.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%50), "file"+strconv.Itoa(i)+".txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("line %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir, env
}

// BenchmarkState: what one plugin run asks, Open and State, on a clean
// repository (the case that reads the most).
func BenchmarkState(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			dir, env := benchRepo(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st := Open(context.Background(), dir, Options{Env: env}).State(context.Background())
				if st.Dirty || st.Warning != "" {
					b.Fatalf("State = %+v", st)
				}
			}
		})
	}
}

// BenchmarkGitStatus: `git status --porcelain` alone, the baseline (what
// the Rust fledge runs, with three more git processes).
func BenchmarkGitStatus(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run("files="+strconv.Itoa(n), func(b *testing.B) {
			dir, env := benchRepo(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command("git", "status", "--porcelain")
				cmd.Dir, cmd.Env = dir, env
				if out, err := cmd.Output(); err != nil || len(out) != 0 {
					b.Fatalf("git status: %q %v", out, err)
				}
			}
		})
	}
}

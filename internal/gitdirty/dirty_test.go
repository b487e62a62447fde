package gitdirty

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
)

// These tests hold Dirty to git's own answer: for every scenario the real
// git CLI builds the repository, `git status --porcelain` decides, and
// Dirty must agree. Each scenario also states the expected answer, so a
// test cannot pass by git and Dirty being wrong together (a git that
// disagrees with the table fails the test, naming git).

// dtEnv points git, and Dirty (which reads the same process
// environment), at an empty home: no system config, no user config, no
// global ignore file, unless a scenario writes one.
func dtEnv(tb interface {
	TempDir() string
	Setenv(k, v string)
}) string {
	home := tb.TempDir()
	tb.Setenv("HOME", home)
	tb.Setenv("XDG_CONFIG_HOME", "")
	os.Unsetenv("XDG_CONFIG_HOME") // restored by Setenv's cleanup
	tb.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return home
}

// dtGitEnv is the environment of every git process: the test process's own
// (HOME and XDG_CONFIG_HOME as dtEnv or a scenario set them) minus any
// GIT_* variable a caller (a hook, an outer git) may have left in it.
func dtGitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Fledge Test", "GIT_AUTHOR_EMAIL=test@fledge.invalid",
		"GIT_COMMITTER_NAME=Fledge Test", "GIT_COMMITTER_EMAIL=test@fledge.invalid",
		"GIT_TERMINAL_PROMPT=0",
		"LC_ALL=C",
	)
}

func dtGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = dtGitEnv()
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out.String(), errb.String())
	}
	return out.String(), nil
}

// dtPorcelain is git's answer. --no-optional-locks keeps git status from
// refreshing and rewriting the index, which would change what Dirty sees.
func dtPorcelain(dir string) (string, error) {
	return dtGit(dir, "--no-optional-locks", "status", "--porcelain")
}

// dtOld is the modification time every committed file gets before it is
// added, so the index written afterwards is newer than every entry and no
// entry is racy unless a scenario makes it so.
var dtOld = time.Now().Add(-time.Hour).Truncate(time.Second)

type dtRepo struct {
	t    testing.TB
	root string // the worktree (or, for a bare repository, the git dir)
}

func dtRequireGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git CLI not installed: these tests compare with git itself")
	}
}

// dtNewRepo runs git init in a fresh directory named "repo" under a temp dir.
func dtNewRepo(t testing.TB, initArgs ...string) *dtRepo {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	args := append([]string{"-c", "init.defaultBranch=main", "init", "-q", "--template="}, initArgs...)
	if _, err := dtGit(filepath.Dir(root), append(args, root)...); err != nil {
		t.Fatal(err)
	}
	return &dtRepo{t: t, root: root}
}

func (r *dtRepo) path(rel string) string { return filepath.Join(r.root, filepath.FromSlash(rel)) }

func (r *dtRepo) git(args ...string) string {
	r.t.Helper()
	out, err := dtGit(r.root, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// gitMayFail runs a git command whose failure is part of the scenario (a
// conflicting merge) and returns whether it succeeded.
func (r *dtRepo) gitMayFail(args ...string) bool {
	_, err := dtGit(r.root, args...)
	return err == nil
}

func (r *dtRepo) write(rel, content string) {
	r.t.Helper()
	p := r.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// rewrite replaces rel's content in place (same inode) and puts its
// modification time back to what it was.
func (r *dtRepo) rewrite(rel, content string) {
	r.t.Helper()
	fi, err := os.Stat(r.path(rel))
	if err != nil {
		r.t.Fatal(err)
	}
	f, err := os.OpenFile(r.path(rel), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		r.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		r.t.Fatal(err)
	}
	r.chtimes(rel, fi.ModTime())
}

// replace gives rel new content in a new inode (written beside it, renamed
// over it) and puts its modification time back: same size and mtime, but
// the inode git recorded is gone.
func (r *dtRepo) replace(rel, content string) {
	r.t.Helper()
	p := r.path(rel)
	fi, err := os.Stat(p)
	if err != nil {
		r.t.Fatal(err)
	}
	tmp := p + ".replace-tmp"
	if err := os.WriteFile(tmp, []byte(content), fi.Mode().Perm()); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		r.t.Fatal(err)
	}
	r.chtimes(rel, fi.ModTime())
}

// dtNextSecond sleeps until the wall clock is in a later second than now,
// so a change made afterwards gets a ctime whose seconds differ from
// every ctime recorded so far (git compares ctime, like mtime, to the
// second unless built with USE_NSEC).
func dtNextSecond() {
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 10*time.Millisecond).Sub(now))
}

func (r *dtRepo) chtimes(rel string, tm time.Time) {
	r.t.Helper()
	if err := os.Chtimes(r.path(rel), tm, tm); err != nil {
		r.t.Fatal(err)
	}
}

func (r *dtRepo) remove(rel string) {
	r.t.Helper()
	if err := os.RemoveAll(r.path(rel)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *dtRepo) mkdir(rel string) {
	r.t.Helper()
	if err := os.MkdirAll(r.path(rel), 0o755); err != nil {
		r.t.Fatal(err)
	}
}

func (r *dtRepo) symlink(target, rel string) {
	r.t.Helper()
	if err := os.MkdirAll(filepath.Dir(r.path(rel)), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(target, r.path(rel)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *dtRepo) chmod(rel string, mode os.FileMode) {
	r.t.Helper()
	if err := os.Chmod(r.path(rel), mode); err != nil {
		r.t.Fatal(err)
	}
}

// age sets every regular file in the worktree back to old.
func (r *dtRepo) age() {
	r.t.Helper()
	err := filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			return os.Chtimes(p, dtOld, dtOld)
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
}

// commitAll ages the worktree, stages everything and commits.
func (r *dtRepo) commitAll(msg string) {
	r.t.Helper()
	r.age()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
}

// dtCommitted is the usual starting point: a few files in nested
// directories, committed, with an index newer than every file.
func dtCommitted(t testing.TB) *dtRepo {
	t.Helper()
	r := dtNewRepo(t)
	r.write("README.md", "aaaa\n")
	r.write("main.go", "package main\n")
	r.write("src/lib.go", "package src\n")
	r.write("src/util/util.go", "package util\n")
	r.write("docs/guide.md", "guide\n")
	r.commitAll("initial")
	return r
}

// dtWithIgnore is committed plus a committed root .gitignore.
func dtWithIgnore(t testing.TB, rules string) *dtRepo {
	t.Helper()
	r := dtCommitted(t)
	r.write(".gitignore", rules)
	r.commitAll("ignore")
	return r
}

type dtResult struct {
	dirty bool
	err   error
}

// dtDirtyOf opens dir as fledge does and asks Dirty, failing rather than
// hanging if Dirty blocks (on a FIFO, say).
func dtDirtyOf(tb testing.TB, dir string, bare bool) (bool, error) {
	tb.Helper()
	opts := &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true}
	if bare {
		// DetectDotGit looks for a .git upwards and finds none in a
		// bare repository: go-git says "repository does not exist".
		opts = &git.PlainOpenOptions{EnableDotGitCommonDir: true}
	}
	r, err := git.PlainOpenWithOptions(dir, opts)
	if err != nil {
		tb.Fatalf("PlainOpen(%s): %v", dir, err)
	}
	done := make(chan dtResult, 1)
	go func() {
		d, err := Dirty(r)
		done <- dtResult{d, err}
	}()
	select {
	case res := <-done:
		return res.dirty, res.err
	case <-time.After(30 * time.Second):
		tb.Fatalf("Dirty(%s) did not return in 30s", dir)
		return false, nil
	}
}

// dtIndexFile finds the index file of the worktree at dir.
func dtIndexFile(dir string) string {
	out, err := dtGit(dir, "rev-parse", "--git-path", "index")
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(out)
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}

func dtReadOrNil(p string) []byte {
	b, _ := os.ReadFile(p)
	return b
}

type dtScenario struct {
	name string
	want bool // what git status --porcelain says: true when it prints anything
	// setup builds the repository and returns the directory fledge opens
	// ("" for the worktree root).
	setup func(t *testing.T) (r *dtRepo, open string)
	bare  bool // Dirty must return false, nil; git status has no answer
	// global scenarios write the user's git config or ignore file, which
	// Dirty reads from the process environment: they run one at a time
	// with their own HOME.
	global bool
	unix   bool // needs symlinks, modes or FIFOs
}

func dtSimple(f func(r *dtRepo)) func(t *testing.T) (*dtRepo, string) {
	return func(t *testing.T) (*dtRepo, string) {
		r := dtCommitted(t)
		f(r)
		return r, ""
	}
}

func dtIgnoring(rules string, f func(r *dtRepo)) func(t *testing.T) (*dtRepo, string) {
	return func(t *testing.T) (*dtRepo, string) {
		r := dtWithIgnore(t, rules)
		f(r)
		return r, ""
	}
}

func dtScenarios() []dtScenario {
	return []dtScenario{
		// Clean states.
		{name: "clean/after-commit", want: false, setup: dtSimple(func(r *dtRepo) {})},
		{name: "clean/nested-dirs", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("a/b/c/d/e/f.txt", "deep\n")
			r.write("a/b/x.txt", "x\n")
			r.write("a/z/y.txt", "y\n")
			r.commitAll("deep")
			return r, ""
		}},
		{name: "clean/empty-commit-on-fresh-repo", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t)
			r.git("commit", "-q", "--allow-empty", "-m", "empty")
			return r, ""
		}},
		{name: "clean/touch-only", want: false, setup: dtSimple(func(r *dtRepo) {
			now := time.Now()
			r.chtimes("README.md", now)
			r.chtimes("src/lib.go", now)
		})},
		{name: "clean/rewrite-same-content", want: false, setup: dtSimple(func(r *dtRepo) {
			r.rewrite("README.md", "aaaa\n") // ctime changes, content does not
			r.write("main.go", "package main\n")
		})},
		{name: "clean/file-recreated-new-inode", want: false, setup: dtSimple(func(r *dtRepo) {
			r.remove("README.md")
			r.write("README.md", "aaaa\n")
			r.chtimes("README.md", dtOld)
		})},
		{name: "clean/after-commit-same-second", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			// No aging: files, index and commit all in the same second, so
			// every entry is racy and git re-hashes them.
			r := dtNewRepo(t)
			r.write("a.txt", "aaaa")
			r.write("d/b.txt", "bbbb")
			r.git("add", "-A")
			r.git("commit", "-q", "-m", "x")
			return r, ""
		}},
		{name: "clean/file-mtime-in-future", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t)
			r.write("a.txt", "aaaa")
			r.chtimes("a.txt", time.Now().Add(time.Hour))
			r.git("add", "-A")
			r.git("commit", "-q", "-m", "x")
			return r, ""
		}},
		{name: "clean/tracked-empty-file", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("empty", "")
			r.commitAll("empty")
			return r, ""
		}},
		{name: "clean/unicode-and-space-names", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("héllo wörld.txt", "h\n")
			r.write("dir with space/日本.txt", "j\n")
			r.commitAll("names")
			return r, ""
		}},

		// Modified tracked files.
		{name: "modified/same-size-mtime-restored-new-inode", want: true, setup: dtSimple(func(r *dtRepo) {
			// Size and mtime as recorded; the inode (and ctime) tell.
			r.replace("README.md", "bbbb\n")
		})},
		{name: "modified/same-size-mtime-restored-deep", want: true, setup: dtSimple(func(r *dtRepo) {
			r.replace("src/util/util.go", "package utiX\n")
		})},
		{name: "modified/same-size-mtime-restored-same-inode", want: true, setup: dtSimple(func(r *dtRepo) {
			// Size, mtime and inode as recorded; only ctime tells, and
			// git sees ctime to the second, so change it in a later one.
			dtNextSecond()
			r.rewrite("README.md", "bbbb\n")
		})},
		{name: "modified/size", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("README.md", "aaaa\nmore\n")
		})},
		{name: "modified/truncated-to-empty", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("main.go", "")
		})},
		{name: "modified/empty-file-gets-content", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("empty", "")
			r.commitAll("empty")
			r.write("empty", "now something\n")
			return r, ""
		}},
		{name: "modified/crlf-with-autocrlf", want: true, setup: dtSimple(func(r *dtRepo) {
			// git compares sizes before content: a size change is a
			// modification even when the cleaned content matches the blob.
			r.git("config", "core.autocrlf", "true")
			r.write("README.md", "aaaa\r\n")
		})},
		{name: "deleted/file", want: true, setup: dtSimple(func(r *dtRepo) {
			r.remove("main.go")
		})},
		{name: "deleted/whole-dir", want: true, setup: dtSimple(func(r *dtRepo) {
			r.remove("src")
		})},
		{name: "deleted/dir-left-empty", want: true, setup: dtSimple(func(r *dtRepo) {
			r.remove("docs/guide.md")
		})},
		{name: "typechange/file-to-dir", want: true, setup: dtSimple(func(r *dtRepo) {
			r.remove("main.go")
			r.write("main.go/inner.go", "package inner\n")
		})},
		{name: "typechange/file-to-empty-dir", want: true, setup: dtSimple(func(r *dtRepo) {
			r.remove("main.go")
			r.mkdir("main.go")
		})},
		{name: "typechange/dir-to-file", want: true, setup: dtSimple(func(r *dtRepo) {
			r.remove("docs")
			r.write("docs", "guide\n")
		})},
		{name: "typechange/file-to-symlink", want: true, unix: true, setup: dtSimple(func(r *dtRepo) {
			r.remove("README.md")
			r.symlink("main.go", "README.md")
		})},
		{name: "typechange/file-to-symlink-same-content", want: true, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			// The link's target string equals the file's old content.
			r := dtCommitted(t)
			r.write("link", "main.go")
			r.commitAll("link")
			r.remove("link")
			r.symlink("main.go", "link")
			return r, ""
		}},
		{name: "typechange/tracked-dir-to-symlink", want: true, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			// The same files, reached through a link: git does not follow
			// it, so src/lib.go and src/util/util.go are gone and src is
			// an untracked symlink.
			r := dtCommitted(t)
			copyDir := filepath.Join(t.TempDir(), "src")
			dtWriteFile(t, filepath.Join(copyDir, "lib.go"), "package src\n")
			dtWriteFile(t, filepath.Join(copyDir, "util", "util.go"), "package util\n")
			r.remove("src")
			r.symlink(copyDir, "src")
			return r, ""
		}},
		{name: "symlink/clean", want: false, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.symlink("README.md", "link")
			r.symlink("../main.go", "src/link")
			r.symlink("does/not/exist", "dangling")
			r.commitAll("links")
			return r, ""
		}},
		{name: "symlink/target-changed", want: true, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.symlink("README.md", "link")
			r.commitAll("link")
			r.remove("link")
			r.symlink("main.go", "link")
			return r, ""
		}},
		{name: "symlink/target-changed-same-length", want: true, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.symlink("aaaa", "link")
			r.commitAll("link")
			r.remove("link")
			r.symlink("bbbb", "link")
			return r, ""
		}},
		{name: "symlink/recreated-same-target", want: false, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.symlink("README.md", "link")
			r.commitAll("link")
			r.remove("link")
			r.symlink("README.md", "link")
			return r, ""
		}},
		{name: "symlink/target-content-changed", want: true, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			// The link is clean, the file it points to is not.
			r := dtCommitted(t)
			r.symlink("README.md", "link")
			r.commitAll("link")
			r.write("README.md", "changed\n")
			return r, ""
		}},
		{name: "symlink/to-dir-clean", want: false, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			// git records the link, never what is behind it.
			r := dtCommitted(t)
			r.symlink("src", "srclink")
			r.commitAll("link")
			return r, ""
		}},
		{name: "mode/chmod-x", want: true, unix: true, setup: dtSimple(func(r *dtRepo) {
			r.chmod("main.go", 0o755)
		})},
		{name: "mode/chmod-x-filemode-false", want: false, unix: true, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "core.fileMode", "false")
			r.chmod("main.go", 0o755)
		})},
		{name: "mode/chmod-minus-x", want: true, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("run.sh", "#!/bin/sh\n")
			r.chmod("run.sh", 0o755)
			r.commitAll("script")
			r.chmod("run.sh", 0o644)
			return r, ""
		}},
		{name: "mode/group-write-only", want: false, unix: true, setup: dtSimple(func(r *dtRepo) {
			// git tracks only the executable bit.
			r.chmod("main.go", 0o664)
		})},

		// The index differs from HEAD.
		{name: "staged/modification", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("README.md", "bbbb\n")
			r.git("add", "README.md")
		})},
		{name: "staged/modification-deep", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("src/util/util.go", "package util // staged\n")
			r.git("add", "-A")
		})},
		{name: "staged/reverted-and-readded", want: false, setup: dtSimple(func(r *dtRepo) {
			// The cache-tree is invalidated, yet index and HEAD trees match.
			r.write("README.md", "bbbb\n")
			r.git("add", "README.md")
			r.write("README.md", "aaaa\n")
			r.git("add", "README.md")
		})},
		{name: "staged/reverted-deep-readded", want: false, setup: dtSimple(func(r *dtRepo) {
			r.write("src/util/util.go", "changed\n")
			r.write("src/util/extra.go", "extra\n")
			r.git("add", "-A")
			r.write("src/util/util.go", "package util\n")
			r.remove("src/util/extra.go")
			r.git("add", "-A")
		})},
		{name: "staged/new-file", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("new.txt", "new\n")
			r.git("add", "new.txt")
		})},
		{name: "staged/new-empty-file", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("src/empty", "")
			r.git("add", "src/empty")
		})},
		{name: "staged/deletion", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("rm", "-q", "main.go")
		})},
		{name: "staged/rm-cached", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("rm", "-q", "--cached", "main.go")
		})},
		{name: "staged/rm-cached-now-ignored", want: true, setup: dtSimple(func(r *dtRepo) {
			// Deleted from the index; the file is ignored, the deletion is not.
			r.write(".git/info/exclude", "main.go\n")
			r.git("rm", "-q", "--cached", "main.go")
		})},
		{name: "staged/rename", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("mv", "main.go", "cmd.go")
		})},
		{name: "staged/mode-only", want: true, unix: true, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--chmod=+x", "main.go")
		})},
		{name: "staged/intent-to-add", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("later.txt", "later\n")
			r.git("add", "-N", "later.txt")
		})},
		{name: "staged/intent-to-add-empty-file", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("later.txt", "")
			r.git("add", "-N", "later.txt")
		})},
		{name: "staged/read-tree-no-cache-tree-clean", want: false, setup: dtSimple(func(r *dtRepo) {
			// An index rebuilt from HEAD: same tree, no stat data at all.
			r.git("read-tree", "HEAD")
		})},
		{name: "merge/conflict", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.git("checkout", "-q", "-b", "other")
			r.write("README.md", "other\n")
			r.commitAll("other")
			r.git("checkout", "-q", "main")
			r.write("README.md", "mine\n")
			r.commitAll("mine")
			if r.gitMayFail("merge", "-q", "other") {
				t.Fatal("merge unexpectedly succeeded")
			}
			return r, ""
		}},
		{name: "merge/conflict-resolved-committed", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.git("checkout", "-q", "-b", "other")
			r.write("README.md", "other\n")
			r.commitAll("other")
			r.git("checkout", "-q", "main")
			r.write("README.md", "mine\n")
			r.commitAll("mine")
			r.gitMayFail("merge", "-q", "other")
			r.write("README.md", "both\n")
			r.commitAll("merged")
			return r, ""
		}},
		{name: "merge/clean-merge-committed", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.git("checkout", "-q", "-b", "other")
			r.write("other.txt", "other\n")
			r.commitAll("other")
			r.git("checkout", "-q", "main")
			r.write("mine.txt", "mine\n")
			r.commitAll("mine")
			r.git("merge", "-q", "--no-edit", "other")
			return r, ""
		}},

		// Untracked files.
		{name: "untracked/top", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("new.txt", "n\n")
		})},
		{name: "untracked/deep-in-tracked-dir", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("src/util/new.go", "n\n")
		})},
		{name: "untracked/in-untracked-dir", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("newdir/sub/new.txt", "n\n")
		})},
		{name: "untracked/empty-file", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("src/empty", "")
		})},
		{name: "untracked/hidden-file", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write(".env", "SECRET=1\n")
		})},
		{name: "untracked/unicode-name", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("dir with space/héllo wörld.txt", "h\n")
		})},
		{name: "untracked/symlink", want: true, unix: true, setup: dtSimple(func(r *dtRepo) {
			r.symlink("README.md", "link")
		})},
		{name: "untracked/dangling-symlink", want: true, unix: true, setup: dtSimple(func(r *dtRepo) {
			r.symlink("nowhere", "link")
		})},
		{name: "untracked/symlink-to-dir", want: true, unix: true, setup: dtSimple(func(r *dtRepo) {
			r.symlink("src", "srclink")
		})},
		{name: "untracked/empty-dir", want: false, setup: dtSimple(func(r *dtRepo) {
			r.mkdir("emptydir")
		})},
		{name: "untracked/nested-empty-dirs", want: false, setup: dtSimple(func(r *dtRepo) {
			r.mkdir("e1/e2/e3")
			r.mkdir("src/e4/e5")
		})},
		{name: "untracked/dir-with-only-ignored-files", want: false, setup: dtIgnoring("*.o\n", func(r *dtRepo) {
			r.write("objs/a.o", "")
			r.write("objs/deeper/b.o", "")
		})},
		{name: "untracked/gitignore-itself", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write(".gitignore", "*.o\n")
		})},
		{name: "untracked/fifo", want: false, unix: true, setup: dtSimple(func(r *dtRepo) {
			// git lists only regular files and symlinks; a FIFO is none.
			dtMkfifo(r, "pipe")
		})},
		{name: "untracked/fifo-in-new-dir", want: false, unix: true, setup: dtSimple(func(r *dtRepo) {
			dtMkfifo(r, "pipes/pipe")
		})},
		{name: "untracked/nested-repo", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			if _, err := dtGit(r.root, "init", "-q", "--template=", "nested"); err != nil {
				t.Fatal(err)
			}
			return r, ""
		}},
		{name: "untracked/nested-repo-ignored", want: false, setup: dtIgnoring("vendor/\n", func(r *dtRepo) {
			if _, err := dtGit(r.root, "init", "-q", "--template=", "vendor/dep"); err != nil {
				r.t.Fatal(err)
			}
			r.write("vendor/dep/x.go", "x\n")
		})},

		// Ignore rules.
		{name: "ignore/root-gitignore", want: false, setup: dtIgnoring("*.o\n/tmp/\n", func(r *dtRepo) {
			r.write("a.o", "")
			r.write("src/util/b.o", "")
			r.write("tmp/scratch", "")
		})},
		{name: "ignore/nested-gitignore", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("src/.gitignore", "*.gen.go\n")
			r.commitAll("nested ignore")
			r.write("src/util/x.gen.go", "")
			r.write("src/y.gen.go", "")
			return r, ""
		}},
		{name: "ignore/nested-gitignore-does-not-apply-above", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("src/.gitignore", "*.gen.go\n")
			r.commitAll("nested ignore")
			r.write("y.gen.go", "")
			return r, ""
		}},
		{name: "ignore/untracked-nested-gitignore-star", want: false, setup: dtSimple(func(r *dtRepo) {
			// A tool's cache dir that ignores itself, .gitignore included.
			r.write(".cache/.gitignore", "*\n")
			r.write(".cache/data/blob", "b")
		})},
		{name: "ignore/negation-reincludes", want: true, setup: dtIgnoring("*.log\n!keep.log\n", func(r *dtRepo) {
			r.write("keep.log", "k\n")
		})},
		{name: "ignore/negation-other-still-ignored", want: false, setup: dtIgnoring("*.log\n!keep.log\n", func(r *dtRepo) {
			r.write("debug.log", "d\n")
			r.write("src/trace.log", "t\n")
		})},
		{name: "ignore/negation-in-nested-gitignore", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithIgnore(t, "*.log\n")
			r.write("src/.gitignore", "!important.log\n")
			r.commitAll("nested")
			r.write("src/important.log", "i\n")
			return r, ""
		}},
		{name: "ignore/negation-cannot-reinclude-under-ignored-dir", want: false, setup: dtIgnoring("build/\n!build/keep.txt\n", func(r *dtRepo) {
			r.write("build/keep.txt", "k\n")
			r.write("build/out.o", "")
		})},
		{name: "ignore/dir-pattern", want: false, setup: dtIgnoring("build/\n", func(r *dtRepo) {
			r.write("build/out.o", "")
			r.write("src/build/deep/out.o", "")
		})},
		{name: "ignore/dir-pattern-does-not-match-file", want: true, setup: dtIgnoring("build/\n", func(r *dtRepo) {
			r.write("build", "a file, not a dir\n")
		})},
		{name: "ignore/anchored-pattern-only-at-root", want: true, setup: dtIgnoring("/out\n", func(r *dtRepo) {
			r.write("out", "")
			r.write("src/out", "")
		})},
		{name: "ignore/anchored-pattern-at-root", want: false, setup: dtIgnoring("/out\n", func(r *dtRepo) {
			r.write("out", "")
		})},
		{name: "ignore/pattern-with-slash-is-anchored", want: true, setup: dtIgnoring("docs/*.tmp\n", func(r *dtRepo) {
			r.write("docs/a.tmp", "")
			r.write("src/docs/b.tmp", "")
		})},
		{name: "ignore/single-star-does-not-cross-dirs", want: true, setup: dtIgnoring("docs/*.tmp\n", func(r *dtRepo) {
			r.write("docs/sub/a.tmp", "")
		})},
		{name: "ignore/double-star", want: false, setup: dtIgnoring("**/cache/\ndocs/**/*.tmp\n", func(r *dtRepo) {
			r.write("a/b/cache/x", "")
			r.write("cache/y", "")
			r.write("docs/p/q/r.tmp", "")
			r.write("docs/s.tmp", "")
		})},
		{name: "ignore/pattern-matches-dir-name", want: false, setup: dtIgnoring("*.d\n", func(r *dtRepo) {
			r.write("deps.d/a.txt", "")
		})},
		{name: "ignore/trailing-spaces-stripped", want: false, setup: dtIgnoring("secret.txt   \n", func(r *dtRepo) {
			r.write("secret.txt", "s\n")
		})},
		{name: "ignore/escaped-hash-and-comment", want: false, setup: dtIgnoring("# a comment\n\\#notes\n", func(r *dtRepo) {
			r.write("#notes", "n\n")
		})},
		{name: "ignore/comment-is-not-a-pattern", want: true, setup: dtIgnoring("#notes\n", func(r *dtRepo) {
			r.write("#notes", "n\n")
		})},
		{name: "ignore/character-class", want: false, setup: dtIgnoring("*.py[cod]\n", func(r *dtRepo) {
			r.write("a.pyc", "")
			r.write("src/b.pyo", "")
		})},
		{name: "ignore/dir-pattern-covers-tracked-dir", want: false, setup: dtSimple(func(r *dtRepo) {
			// src/ is tracked, and ignored: its tracked files stay
			// tracked, new files in it are ignored.
			r.write(".git/info/exclude", "src/\n")
			r.write("src/new.go", "n\n")
			r.write("src/util/new.go", "n\n")
		})},
		{name: "ignore/crlf-line-endings", want: false, setup: dtIgnoring("*.o\r\nbuild/\r\n", func(r *dtRepo) {
			r.write("a.o", "")
			r.write("build/x", "")
		})},
		{name: "ignore/utf8-bom", want: false, setup: dtIgnoring("\ufeff*.o\n", func(r *dtRepo) {
			r.write("a.o", "")
		})},
		{name: "ignore/double-star-suffix-allows-reinclude", want: true, setup: dtIgnoring("foo/**\n!foo/keep\n", func(r *dtRepo) {
			// foo/** ignores what is inside foo, not foo itself, so the
			// negation can bring foo/keep back (unlike foo/).
			r.write("foo/keep", "")
			r.write("foo/other", "")
		})},
		{name: "ignore/double-star-suffix-rest-ignored", want: false, setup: dtIgnoring("foo/**\n!foo/keep\n", func(r *dtRepo) {
			r.write("foo/other", "")
			r.write("foo/deep/er", "")
		})},
		{name: "ignore/symlinked-gitignore-not-followed", want: true, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			// git (since 2.32) opens .gitignore with O_NOFOLLOW: a
			// symlinked one is warned about and not read.
			r := dtCommitted(t)
			target := filepath.Join(t.TempDir(), "ignore-rules")
			dtWriteFile(t, target, "*.o\n")
			r.symlink(target, ".gitignore")
			r.commitAll("symlinked ignore")
			r.write("a.o", "")
			return r, ""
		}},
		{name: "ignore/whitelist-reincludes-go-files", want: true, setup: dtSimple(func(r *dtRepo) {
			// "Ignore everything but Go files": directories come back with
			// !*/, so a new .go file deep down is untracked.
			r.write(".git/info/exclude", "*\n!*/\n!*.go\n")
			r.write("notes.txt", "")
			r.write("newpkg/x.go", "")
		})},
		{name: "ignore/whitelist-rest-ignored", want: false, setup: dtSimple(func(r *dtRepo) {
			r.write(".git/info/exclude", "*\n!*/\n!*.go\n")
			r.write("notes.txt", "")
			r.write("newdir/deeper/data.json", "")
		})},
		{name: "ignore/double-star-alone", want: false, setup: dtSimple(func(r *dtRepo) {
			r.write(".git/info/exclude", "**\n")
			r.write("a", "")
			r.write("d/e", "")
		})},
		{name: "ignore/double-star-middle-matches-zero-dirs", want: false, setup: dtIgnoring("a/**/b\n", func(r *dtRepo) {
			r.write("a/b", "")
			r.write("a/x/y/b", "")
		})},
		{name: "ignore/leading-double-star-with-slash", want: false, setup: dtIgnoring("**/foo/bar\n", func(r *dtRepo) {
			r.write("foo/bar", "")
			r.write("x/y/foo/bar", "")
		})},
		{name: "ignore/dir-star-then-negation", want: true, setup: dtIgnoring("d/*\n!d/keep\n", func(r *dtRepo) {
			r.write("d/x", "")
			r.write("d/keep", "")
		})},
		{name: "ignore/negated-class-bang", want: false, setup: dtIgnoring("*.[!o]\n", func(r *dtRepo) {
			// wildmatch's [!o] is "not o" (Go's path.Match only knows [^o]).
			r.write("a.c", "")
		})},
		{name: "ignore/negated-class-bang-not-matching", want: true, setup: dtIgnoring("*.[!o]\n", func(r *dtRepo) {
			r.write("a.o", "")
		})},
		{name: "ignore/posix-class", want: false, setup: dtIgnoring("log[[:digit:]].txt\n", func(r *dtRepo) {
			r.write("log1.txt", "")
		})},
		{name: "ignore/escaped-trailing-space", want: false, setup: dtIgnoring("foo\\ \n", func(r *dtRepo) {
			r.write("foo ", "")
		})},
		{name: "ignore/escaped-bang", want: false, setup: dtIgnoring("\\!keep\n", func(r *dtRepo) {
			r.write("!keep", "")
		})},
		{name: "ignore/case-sensitive", want: true, setup: dtIgnoring("*.O\n", func(r *dtRepo) {
			r.write("a.o", "")
		})},
		{name: "ignore/info-exclude", want: false, setup: dtSimple(func(r *dtRepo) {
			r.write(".git/info/exclude", "secrets/\n*.swp\n")
			r.write("secrets/key", "k")
			r.write("src/.lib.go.swp", "")
		})},
		{name: "ignore/info-exclude-does-not-cover", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write(".git/info/exclude", "*.swp\n")
			r.write("notes.txt", "")
		})},
		{name: "ignore/core-excludesfile-in-repo-config", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			ex := filepath.Join(t.TempDir(), "excludes")
			if err := os.WriteFile(ex, []byte(".idea/\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r.git("config", "core.excludesFile", ex)
			r.write(".idea/workspace.xml", "")
			return r, ""
		}},
		{name: "ignore/tracked-file-in-ignored-dir-modified", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithIgnore(t, "vendor/\n*.lock\n")
			r.write("vendor/dep/dep.go", "package dep\n")
			r.write("Cargo.lock", "v1\n")
			r.age()
			r.git("add", "-f", "vendor/dep/dep.go", "Cargo.lock")
			r.git("commit", "-q", "-m", "forced")
			r.write("vendor/dep/dep.go", "package dep // patched\n")
			return r, ""
		}},
		{name: "ignore/tracked-ignored-file-modified", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithIgnore(t, "*.lock\n")
			r.write("Cargo.lock", "v1\n")
			r.age()
			r.git("add", "-f", "Cargo.lock")
			r.git("commit", "-q", "-m", "forced")
			r.replace("Cargo.lock", "v2\n")
			return r, ""
		}},
		{name: "ignore/tracked-ignored-file-deleted", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithIgnore(t, "*.lock\n")
			r.write("Cargo.lock", "v1\n")
			r.age()
			r.git("add", "-f", "Cargo.lock")
			r.git("commit", "-q", "-m", "forced")
			r.remove("Cargo.lock")
			return r, ""
		}},
		{name: "ignore/tracked-file-in-ignored-dir-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithIgnore(t, "vendor/\n")
			r.write("vendor/dep/dep.go", "package dep\n")
			r.age()
			r.git("add", "-f", "vendor/dep/dep.go")
			r.git("commit", "-q", "-m", "forced")
			r.write("vendor/dep/other.go", "ignored\n")
			return r, ""
		}},
		{name: "ignore/gitignore-modified-uncommitted", want: true, setup: dtIgnoring("*.o\n", func(r *dtRepo) {
			// Ignoring something new is itself a change.
			r.write(".gitignore", "*.o\nnew.txt\n")
			r.write("new.txt", "")
		})},
		{name: "ignore/staged-file-matching-ignore", want: true, setup: dtIgnoring("*.o\n", func(r *dtRepo) {
			r.write("forced.o", "")
			r.git("add", "-f", "forced.o")
		})},

		// Configuration.
		{name: "config/showUntrackedFiles-no", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "status.showUntrackedFiles", "no")
			r.write("new.txt", "n\n")
		})},
		{name: "config/showUntrackedFiles-no-modified", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "status.showUntrackedFiles", "no")
			r.write("new.txt", "n\n")
			r.write("README.md", "bbbbbbb\n")
		})},
		{name: "config/showUntrackedFiles-all", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "status.showUntrackedFiles", "all")
			r.write("newdir/new.txt", "n\n")
		})},
		{name: "config/trustctime-false-touch", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "core.trustctime", "false")
			r.rewrite("README.md", "aaaa\n")
		})},
		{name: "config/trustctime-false-new-inode", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "core.trustctime", "false")
			r.replace("README.md", "bbbb\n")
		})},
		{name: "gitblind/trustctime-false-same-size-same-inode", want: false, setup: dtSimple(func(r *dtRepo) {
			// git's answer is "clean" although the content differs: ctime
			// is not trusted, and size, mtime, inode and mode all match an
			// entry older than the index, so git never reads the file.
			// This is what the Rust fledge reports, deterministically.
			r.git("config", "core.trustctime", "false")
			r.rewrite("README.md", "bbbb\n")
		})},
		{name: "config/checkstat-minimal-modified", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "core.checkStat", "minimal")
			r.write("README.md", "bbbbbb\n")
		})},
		{name: "config/include-path-excludesfile", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			// Config reached through [include] must count too.
			r := dtCommitted(t)
			dir := t.TempDir()
			ex := filepath.Join(dir, "excludes")
			inc := filepath.Join(dir, "extra.config")
			if err := os.WriteFile(ex, []byte("*.bak\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(inc, []byte("[core]\n\texcludesFile = "+filepath.ToSlash(ex)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r.git("config", "include.path", inc)
			r.write("x.bak", "")
			return r, ""
		}},

		// Racy git: a change in the same second as the index was written.
		{name: "racy/same-size-after-commit-same-second", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			// Not aged: the index is written within the file's second (or
			// its nanosecond neighbourhood), then the file changes without
			// changing size. git re-hashes entries not older than the index.
			r := dtNewRepo(t)
			r.write("a.txt", "aaaa")
			r.git("add", "a.txt")
			r.git("commit", "-q", "-m", "x")
			r.rewrite("a.txt", "bbbb")
			return r, ""
		}},
		{name: "racy/mtime-equals-index-mtime-no-ctime", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			// Deterministic: ctime is not trusted, every recorded stat field
			// matches, and only the entry's mtime not being older than the
			// index file's says "look at the content".
			r := dtNewRepo(t)
			r.git("config", "core.trustctime", "false")
			r.write("a.txt", "aaaa")
			r.write("b.txt", "cccc")
			r.age()
			r.git("add", "-A")
			r.git("commit", "-q", "-m", "x")
			r.rewrite("a.txt", "bbbb")
			tm := dtOld
			if err := os.Chtimes(dtIndexFile(r.root), tm, tm); err != nil {
				t.Fatal(err)
			}
			return r, ""
		}},
		{name: "racy/mtime-equals-index-mtime-unchanged", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t)
			r.git("config", "core.trustctime", "false")
			r.write("a.txt", "aaaa")
			r.age()
			r.git("add", "-A")
			r.git("commit", "-q", "-m", "x")
			if err := os.Chtimes(dtIndexFile(r.root), dtOld, dtOld); err != nil {
				t.Fatal(err)
			}
			return r, ""
		}},
		{name: "racy/smudged-entry-still-changed", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtSmudged(t)
			return r, ""
		}},
		{name: "racy/smudged-entry-restored", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			// The index records size 0 for a.txt (git smudged the racily
			// clean entry), the file has its committed content again: a
			// size mismatch against a smudged entry means "hash it".
			r := dtSmudged(t)
			r.rewrite("a.txt", "aaaa\n")
			return r, ""
		}},

		// HEAD states.
		{name: "unborn/empty", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			return dtNewRepo(t), ""
		}},
		{name: "unborn/untracked", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t)
			r.write("a.txt", "a\n")
			return r, ""
		}},
		{name: "unborn/only-ignored", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t)
			r.write(".git/info/exclude", "*.o\n")
			r.write("a.o", "")
			return r, ""
		}},
		{name: "unborn/staged", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t)
			r.write("a.txt", "a\n")
			r.git("add", "a.txt")
			return r, ""
		}},
		{name: "unborn/other-default-branch-staged", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t, "--initial-branch=trunk")
			r.write("a.txt", "a\n")
			r.git("add", "a.txt")
			return r, ""
		}},
		{name: "head/detached-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("second.txt", "2\n")
			r.commitAll("second")
			r.git("checkout", "-q", "--detach", "HEAD~1")
			return r, ""
		}},
		{name: "head/detached-dirty", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("second.txt", "2\n")
			r.commitAll("second")
			r.git("checkout", "-q", "--detach", "HEAD~1")
			r.write("README.md", "changed on detached head\n")
			return r, ""
		}},
		{name: "head/branch-switched-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.git("checkout", "-q", "-b", "feature")
			r.write("feature.txt", "f\n")
			r.git("rm", "-q", "docs/guide.md")
			r.commitAll("feature")
			r.git("checkout", "-q", "main")
			return r, ""
		}},
		{name: "head/packed-refs-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.git("pack-refs", "--all")
			r.git("gc", "-q")
			return r, ""
		}},
		{name: "head/packed-objects-dirty", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.git("gc", "-q")
			r.replace("src/lib.go", "package xyz\n")
			return r, ""
		}},

		// Skip-worktree, assume-unchanged and sparse checkouts.
		{name: "skip-worktree/deleted", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--skip-worktree", "main.go")
			r.remove("main.go")
		})},
		{name: "skip-worktree/modified", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--skip-worktree", "main.go")
			r.write("main.go", "package main // local\n")
		})},
		{name: "assume-unchanged/modified", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--assume-unchanged", "main.go")
			r.write("main.go", "package main // local\n")
		})},
		{name: "assume-unchanged/deleted", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--assume-unchanged", "main.go")
			r.remove("main.go")
		})},
		{name: "assume-unchanged/whole-dir-deleted", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--assume-unchanged", "src/lib.go", "src/util/util.go")
			r.remove("src")
		})},
		{name: "assume-unchanged/replaced-by-empty-dir", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--assume-unchanged", "main.go")
			r.remove("main.go")
			r.mkdir("main.go")
		})},
		{name: "assume-unchanged/replaced-by-dir-with-file", want: false, setup: dtSimple(func(r *dtRepo) {
			// git does not look inside a directory whose path the index
			// holds as a file, so main.go/inner is not reported untracked.
			r.git("update-index", "--assume-unchanged", "main.go")
			r.remove("main.go")
			r.write("main.go/inner", "i\n")
		})},
		{name: "assume-unchanged/staged-change-still-dirty", want: true, setup: dtSimple(func(r *dtRepo) {
			r.write("main.go", "package main // staged\n")
			r.git("add", "main.go")
			r.git("update-index", "--assume-unchanged", "main.go")
		})},
		{name: "skip-worktree/replaced-by-dir-with-file", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--skip-worktree", "main.go")
			r.remove("main.go")
			r.write("main.go/inner", "i\n")
		})},
		{name: "sparse/cone-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			return dtSparse(t, false), ""
		}},
		{name: "sparse/cone-dirty-inside", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtSparse(t, false)
			r.write("src/lib.go", "package changed\n")
			return r, ""
		}},
		{name: "sparse/cone-untracked-outside", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtSparse(t, false)
			r.write("elsewhere/new.txt", "n\n")
			return r, ""
		}},
		{name: "sparse/sparse-index-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			return dtSparse(t, true), ""
		}},
		{name: "sparse/sparse-index-untracked", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtSparse(t, true)
			r.write("src/new.go", "n\n")
			return r, ""
		}},
		{name: "sparse/sparse-index-staged", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtSparse(t, true)
			r.write("src/lib.go", "package staged\n")
			r.git("add", "src/lib.go")
			return r, ""
		}},

		// Index formats and extensions.
		{name: "index/v4-clean", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--index-version", "4")
		})},
		{name: "index/v4-modified", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--index-version", "4")
			r.replace("src/util/util.go", "package Util\n")
		})},
		{name: "index/v4-staged-reverted", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--index-version", "4")
			r.write("src/lib.go", "x\n")
			r.git("add", "src/lib.go")
			r.write("src/lib.go", "package src\n")
			r.git("add", "src/lib.go")
		})},
		{name: "index/v3-extended-flags-clean", want: false, setup: dtSimple(func(r *dtRepo) {
			// An intent-to-add entry forces v3; committing it clears it.
			r.write("later.txt", "l\n")
			r.git("add", "-N", "later.txt")
			r.git("add", "later.txt")
			r.git("commit", "-q", "-m", "later")
			r.git("update-index", "--index-version", "3")
		})},
		{name: "index/split-clean", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--split-index")
		})},
		{name: "index/split-staged", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--split-index")
			r.write("new.txt", "n\n")
			r.git("add", "new.txt")
		})},
		{name: "index/split-deleted-in-shared", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("update-index", "--split-index")
			r.git("rm", "-q", "--cached", "docs/guide.md")
			r.write(".git/info/exclude", "guide.md\n")
		})},
		{name: "index/untracked-cache-clean", want: false, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "core.untrackedCache", "true")
			r.git("update-index", "--untracked-cache")
			r.git("status", "--porcelain") // fills and writes the cache
		})},
		{name: "index/untracked-cache-stale", want: true, setup: dtSimple(func(r *dtRepo) {
			r.git("config", "core.untrackedCache", "true")
			r.git("update-index", "--untracked-cache")
			r.git("status", "--porcelain")
			r.write("src/util/new.go", "n\n")
		})},
		{name: "index/many-files-feature-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t)
			r.git("config", "feature.manyFiles", "true")
			r.git("config", "index.threads", "2")
			for i := range 40 {
				r.write(fmt.Sprintf("d%d/f%d.txt", i%5, i), fmt.Sprintf("file %d\n", i))
			}
			r.commitAll("many")
			r.git("status", "--porcelain")
			return r, ""
		}},
		{name: "index/many-files-feature-modified", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtNewRepo(t)
			r.git("config", "feature.manyFiles", "true")
			for i := range 40 {
				r.write(fmt.Sprintf("d%d/f%d.txt", i%5, i), fmt.Sprintf("file %d\n", i))
			}
			r.commitAll("many")
			r.git("status", "--porcelain")
			r.replace("d3/f38.txt", "file XX\n")
			return r, ""
		}},

		// Where fledge stands: subdirectories, linked worktrees, bare repos,
		// submodules.
		{name: "open/subdir-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			return r, r.path("src/util")
		}},
		{name: "open/subdir-change-elsewhere", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("docs/guide.md", "changed elsewhere\n")
			return r, r.path("src/util")
		}},
		{name: "open/subdir-untracked-elsewhere", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			r.write("top-level-new.txt", "")
			return r, r.path("src")
		}},
		{name: "open/untracked-subdir-of-repo", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			// fledge run from inside a directory git does not track yet.
			r := dtCommitted(t)
			r.write("scratch/notes.txt", "")
			return r, r.path("scratch")
		}},
		{name: "worktree/linked-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			wt := filepath.Join(filepath.Dir(r.root), "linked")
			r.git("worktree", "add", "-q", "-b", "wt", wt)
			return r, wt
		}},
		{name: "worktree/linked-dirty", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			wt := filepath.Join(filepath.Dir(r.root), "linked")
			r.git("worktree", "add", "-q", "-b", "wt", wt)
			if err := os.WriteFile(filepath.Join(wt, "src", "lib.go"), []byte("package linked\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return r, wt
		}},
		{name: "worktree/linked-untracked", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			wt := filepath.Join(filepath.Dir(r.root), "linked")
			r.git("worktree", "add", "-q", "-b", "wt", wt)
			if err := os.WriteFile(filepath.Join(wt, "new.txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return r, wt
		}},
		{name: "worktree/linked-clean-main-dirty", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			// The linked worktree has its own index and HEAD.
			r := dtCommitted(t)
			wt := filepath.Join(filepath.Dir(r.root), "linked")
			r.git("worktree", "add", "-q", "-b", "wt", wt)
			r.write("README.md", "main is dirty\n")
			r.write("untracked-in-main", "")
			return r, wt
		}},
		{name: "worktree/main-clean-linked-dirty", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			wt := filepath.Join(filepath.Dir(r.root), "linked")
			r.git("worktree", "add", "-q", "-b", "wt", wt)
			if err := os.WriteFile(filepath.Join(wt, "README.md"), []byte("linked is dirty\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return r, ""
		}},
		{name: "worktree/linked-info-exclude-shared", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			// info/exclude lives in the common dir and applies to every worktree.
			r := dtCommitted(t)
			r.write(".git/info/exclude", "*.tmp\n")
			wt := filepath.Join(filepath.Dir(r.root), "linked")
			r.git("worktree", "add", "-q", "-b", "wt", wt)
			if err := os.WriteFile(filepath.Join(wt, "x.tmp"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return r, wt
		}},
		{name: "worktree/linked-subdir-dirty", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtCommitted(t)
			wt := filepath.Join(filepath.Dir(r.root), "linked")
			r.git("worktree", "add", "-q", "-b", "wt", wt)
			if err := os.WriteFile(filepath.Join(wt, "README.md"), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return r, filepath.Join(wt, "src", "util")
		}},
		{name: "worktree/separate-git-dir-clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			base := t.TempDir()
			root := filepath.Join(base, "work")
			if _, err := dtGit(base, "-c", "init.defaultBranch=main", "init", "-q", "--template=", "--separate-git-dir", filepath.Join(base, "store.git"), root); err != nil {
				t.Fatal(err)
			}
			r := &dtRepo{t: t, root: root}
			r.write("a.txt", "a\n")
			r.commitAll("x")
			return r, ""
		}},
		{name: "worktree/separate-git-dir-dirty", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			base := t.TempDir()
			root := filepath.Join(base, "work")
			if _, err := dtGit(base, "-c", "init.defaultBranch=main", "init", "-q", "--template=", "--separate-git-dir", filepath.Join(base, "store.git"), root); err != nil {
				t.Fatal(err)
			}
			r := &dtRepo{t: t, root: root}
			r.write("a.txt", "a\n")
			r.commitAll("x")
			r.write("b.txt", "b\n")
			return r, ""
		}},
		{name: "bare/repository", want: false, bare: true, setup: func(t *testing.T) (*dtRepo, string) {
			src := dtCommitted(t)
			bare := filepath.Join(t.TempDir(), "bare.git")
			if _, err := dtGit(src.root, "clone", "-q", "--bare", src.root, bare); err != nil {
				t.Fatal(err)
			}
			return &dtRepo{t: t, root: bare}, bare
		}},
		{name: "submodule/clean", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			return dtWithSubmodule(t), ""
		}},
		{name: "submodule/modified-inside", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithSubmodule(t)
			r.write("sub/s.txt", "changed\n")
			return r, ""
		}},
		{name: "submodule/untracked-inside", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithSubmodule(t)
			r.write("sub/new.txt", "")
			return r, ""
		}},
		{name: "submodule/new-commit-inside", want: true, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithSubmodule(t)
			sub := &dtRepo{t: t, root: r.path("sub")}
			sub.write("s2.txt", "2\n")
			sub.commitAll("sub second")
			return r, ""
		}},
		{name: "submodule/ignore-untracked-config", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			r := dtWithSubmodule(t)
			r.git("config", "submodule.sub.ignore", "untracked")
			r.write("sub/new.txt", "")
			return r, ""
		}},
		{name: "submodule/not-initialised", want: false, setup: func(t *testing.T) (*dtRepo, string) {
			// A clone without --recurse-submodules: the gitlink's directory
			// is empty.
			r := dtWithSubmodule(t)
			clone := filepath.Join(t.TempDir(), "clone")
			if _, err := dtGit(r.root, "clone", "-q", r.root, clone); err != nil {
				t.Fatal(err)
			}
			return &dtRepo{t: t, root: clone}, ""
		}},

		// The global configuration Dirty must read like git: these run
		// one at a time with their own HOME.
		{name: "global/core-excludesfile", want: false, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			home := os.Getenv("HOME")
			ex := filepath.Join(home, "global-ignore")
			dtWriteFile(t, ex, ".DS_Store\n*.swp\n")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\texcludesFile = "+filepath.ToSlash(ex)+"\n")
			r := dtCommitted(t)
			r.write(".DS_Store", "")
			r.write("src/.x.swp", "")
			return r, ""
		}},
		{name: "global/core-excludesfile-tilde", want: false, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			home := os.Getenv("HOME")
			dtWriteFile(t, filepath.Join(home, ".gitignore_global"), ".DS_Store\n")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\texcludesfile = ~/.gitignore_global\n")
			r := dtCommitted(t)
			r.write("src/.DS_Store", "")
			return r, ""
		}},
		{name: "global/core-excludesfile-not-covering", want: true, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			home := os.Getenv("HOME")
			dtWriteFile(t, filepath.Join(home, ".gitignore_global"), ".DS_Store\n")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\texcludesfile = ~/.gitignore_global\n")
			r := dtCommitted(t)
			r.write("notes.txt", "")
			return r, ""
		}},
		{name: "global/xdg-default-ignore", want: false, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			// core.excludesFile unset, XDG_CONFIG_HOME unset:
			// $HOME/.config/git/ignore.
			home := os.Getenv("HOME")
			dtWriteFile(t, filepath.Join(home, ".config", "git", "ignore"), "*.swp\n.envrc\n")
			r := dtCommitted(t)
			r.write("src/.lib.go.swp", "")
			r.write(".envrc", "")
			return r, ""
		}},
		{name: "global/xdg-config-home-ignore", want: false, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			dtWriteFile(t, filepath.Join(xdg, "git", "ignore"), "*.swp\n")
			r := dtCommitted(t)
			r.write("src/.lib.go.swp", "")
			return r, ""
		}},
		{name: "global/xdg-config-home-ignores-home-config", want: true, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			// With XDG_CONFIG_HOME set, $HOME/.config/git/ignore is not read.
			home := os.Getenv("HOME")
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			dtWriteFile(t, filepath.Join(home, ".config", "git", "ignore"), "*.swp\n")
			r := dtCommitted(t)
			r.write("src/.lib.go.swp", "")
			return r, ""
		}},
		{name: "global/excludesfile-replaces-xdg-default", want: true, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			// Once core.excludesFile is set, the XDG default is not read.
			home := os.Getenv("HOME")
			dtWriteFile(t, filepath.Join(home, ".config", "git", "ignore"), "*.swp\n")
			dtWriteFile(t, filepath.Join(home, ".gitignore_global"), ".DS_Store\n")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\texcludesfile = ~/.gitignore_global\n")
			r := dtCommitted(t)
			r.write("a.swp", "")
			return r, ""
		}},
		{name: "global/xdg-config-file", want: false, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			// $HOME/.config/git/config is a user config file too.
			home := os.Getenv("HOME")
			dtWriteFile(t, filepath.Join(home, ".config", "git", "config"), "[status]\n\tshowUntrackedFiles = no\n")
			r := dtCommitted(t)
			r.write("new.txt", "")
			return r, ""
		}},
		{name: "global/includeif-gitdir-excludesfile", want: false, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			// The common "work repos get work settings" user config.
			home := os.Getenv("HOME")
			r := dtCommitted(t)
			ex := filepath.Join(home, "work-ignore")
			extra := filepath.Join(home, "work.gitconfig")
			dtWriteFile(t, ex, "*.local\n")
			dtWriteFile(t, extra, "[core]\n\texcludesFile = "+filepath.ToSlash(ex)+"\n")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"),
				"[includeIf \"gitdir:"+filepath.ToSlash(filepath.Dir(r.root))+"/\"]\n\tpath = "+filepath.ToSlash(extra)+"\n")
			r.write("settings.local", "")
			return r, ""
		}},
		{name: "global/includeif-gitdir-not-matching", want: true, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			home := os.Getenv("HOME")
			r := dtCommitted(t)
			ex := filepath.Join(home, "work-ignore")
			extra := filepath.Join(home, "work.gitconfig")
			dtWriteFile(t, ex, "*.local\n")
			dtWriteFile(t, extra, "[core]\n\texcludesFile = "+filepath.ToSlash(ex)+"\n")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"),
				"[includeIf \"gitdir:"+filepath.ToSlash(filepath.Join(home, "elsewhere"))+"/\"]\n\tpath = "+filepath.ToSlash(extra)+"\n")
			r.write("settings.local", "")
			return r, ""
		}},
		{name: "global/showUntrackedFiles-no", want: false, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			home := os.Getenv("HOME")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"), "[status]\n\tshowUntrackedFiles = no\n")
			r := dtCommitted(t)
			r.write("new.txt", "")
			return r, ""
		}},
		{name: "global/repo-config-overrides-global", want: true, global: true, setup: func(t *testing.T) (*dtRepo, string) {
			home := os.Getenv("HOME")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"), "[status]\n\tshowUntrackedFiles = no\n")
			r := dtCommitted(t)
			r.git("config", "status.showUntrackedFiles", "normal")
			r.write("new.txt", "")
			return r, ""
		}},
		{name: "global/filemode-false-does-not-override-repo", want: true, global: true, unix: true, setup: func(t *testing.T) (*dtRepo, string) {
			// git init writes core.filemode=true into the repository config,
			// which beats the global false.
			home := os.Getenv("HOME")
			dtWriteFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\tfileMode = false\n")
			r := dtCommitted(t)
			r.chmod("main.go", 0o755)
			return r, ""
		}},
	}
}

func dtWriteFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func dtMkfifo(r *dtRepo, rel string) {
	r.t.Helper()
	p := r.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if out, err := exec.Command("mkfifo", p).CombinedOutput(); err != nil {
		r.t.Fatalf("mkfifo: %v %s", err, out)
	}
}

// dtSmudged builds a repository whose index records size 0 for a.txt: git
// found the entry racily clean (stat data matching, content not) when it
// wrote the index, and smudged it so it can never look clean by stat again.
func dtSmudged(t testing.TB) *dtRepo {
	t.Helper()
	r := dtNewRepo(t)
	r.git("config", "core.trustctime", "false")
	r.write("a.txt", "aaaa\n")
	future := time.Now().Add(time.Hour).Truncate(time.Second)
	r.chtimes("a.txt", future)
	r.git("add", "a.txt")
	r.git("commit", "-q", "-m", "x")
	r.rewrite("a.txt", "bbbb\n") // same size, same mtime, same inode
	r.write("g.txt", "g\n")
	r.git("add", "g.txt") // rewrites the index, smudging a.txt
	r.git("commit", "-q", "-m", "g")
	out := r.git("ls-files", "--debug", "a.txt")
	if !strings.Contains(out, "size: 0\t") {
		t.Fatalf("a.txt was not smudged:\n%s", out)
	}
	return r
}

// dtSparse is dtCommitted checked out sparsely (cone mode, only src/),
// set up by hand: `git sparse-checkout set` also turns on
// extensions.worktreeConfig, which go-git v5 refuses to open. With
// sparseIndex the index holds a sparse directory entry for docs/.
func dtSparse(t testing.TB, sparseIndex bool) *dtRepo {
	t.Helper()
	r := dtCommitted(t)
	r.git("config", "core.sparseCheckout", "true")
	r.git("config", "core.sparseCheckoutCone", "true")
	r.write(".git/info/sparse-checkout", "/*\n!/*/\n/src/\n")
	r.git("read-tree", "-mu", "HEAD")
	if sparseIndex {
		r.git("config", "index.sparse", "true")
		r.git("sparse-checkout", "reapply")
		if out := r.git("ls-files", "--sparse", "docs/"); strings.TrimSpace(out) != "docs/" {
			t.Fatalf("no sparse directory entry: %q", out)
		}
	}
	if _, err := os.Stat(r.path("docs")); !os.IsNotExist(err) {
		t.Fatalf("docs/ still checked out: %v", err)
	}
	return r
}

// dtWithSubmodule is committed plus a submodule at sub/ with one file.
func dtWithSubmodule(t testing.TB) *dtRepo {
	t.Helper()
	src := dtNewRepo(t)
	src.write("s.txt", "s\n")
	src.commitAll("sub")
	r := dtCommitted(t)
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", src.root, "sub")
	r.commitAll("add submodule")
	return r
}

func TestDirtyMatchesGit(t *testing.T) {
	dtRequireGit(t)
	dtEnv(t)
	for _, sc := range dtScenarios() {
		if sc.unix && runtime.GOOS == "windows" {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			if sc.global {
				dtEnv(t) // a HOME of its own; not parallel
			} else {
				t.Parallel()
			}
			r, open := sc.setup(t)
			if open == "" {
				open = r.root
			}
			dtCheck(t, open, sc.want, sc.bare)
		})
	}
}

// dtCheck asks Dirty, then git, and holds both to want.
func dtCheck(t *testing.T, open string, want, bare bool) {
	t.Helper()
	idx := ""
	if !bare {
		idx = dtIndexFile(open)
	}
	before := dtReadOrNil(idx)
	got, err := dtDirtyOf(t, open, bare)
	if err != nil {
		t.Fatalf("Dirty: %v", err)
	}
	if idx != "" && !bytes.Equal(before, dtReadOrNil(idx)) {
		t.Errorf("Dirty rewrote the index")
	}
	if bare {
		out, err := dtGit(open, "rev-parse", "--is-bare-repository")
		if err != nil || strings.TrimSpace(out) != "true" {
			t.Fatalf("not a bare repository: %q %v", out, err)
		}
		if got {
			t.Errorf("Dirty(bare) = true, want false")
		}
		return
	}
	out, err := dtPorcelain(open)
	if err != nil {
		t.Fatal(err)
	}
	gitSays := out != ""
	if gitSays != want {
		t.Errorf("git status --porcelain says dirty=%v, the table says %v (git %s); porcelain:\n%s", gitSays, want, dtGitVersion(), out)
	}
	if got != gitSays {
		t.Errorf("Dirty = %v, git says %v; git status --porcelain:\n%s", got, gitSays, out)
	}
}

func dtGitVersion() string {
	out, _ := dtGit(".", "version")
	return strings.TrimSpace(out)
}

func TestDirtyBareReturnsNoError(t *testing.T) {
	dtRequireGit(t)
	dtEnv(t)
	bare := filepath.Join(t.TempDir(), "b.git")
	if _, err := dtGit(filepath.Dir(bare), "init", "-q", "--bare", "--template=", bare); err != nil {
		t.Fatal(err)
	}
	r, err := git.PlainOpen(bare)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Dirty(r)
	if d || err != nil {
		t.Fatalf("Dirty(bare) = %v, %v; want false, nil", d, err)
	}
}

// The fuzzed repository: eight committed files in three directories (one
// nested), untracked names beside them, and two directories as targets.
var (
	fzTracked = []string{"a.txt", "b.log", "d1/c.txt", "d1/d.log", "d1/d2/e.txt", "d1/d2/f.bin", "d3/g.txt", "d3/h"}
	fzPaths   = append(append([]string{}, fzTracked...),
		"new.txt", "d1/new.log", "d4/x.txt", "d4/d5/y.bin", "d3/keep.log", "d1/d2/z", "d1", "d3")
	fzContents = []string{"aaaa", "bbbb", "", "aaaa\n", "x", "aaaab"}
	fzTargets  = []string{"a.txt", "d1", "nowhere", "aaaa"}
	fzPatterns = []string{"*.log", "!keep.log", "d2/", "/new.txt", "*.bin", "x.txt", "d4", "!*.txt",
		"d1/", "*", "!d.log", "e.txt", "d5/", "/d3", "**/z", "#c", "d1/**", "!d1/d2/z", "d4/**", "!d2", "!*/", "*.[!t]*", "[[:alpha:]].txt"}
	fzIgnoreDirs = []string{"", "d1", "d1/d2", "d4", ".git/info"}
	fzConfigs    = [][2]string{{"core.fileMode", "false"}, {"status.showUntrackedFiles", "no"},
		{"core.trustctime", "false"}, {"core.untrackedCache", "true"}, {"core.excludesFile", ""}}
)

const fzMaxOps = 10

// fzRepo runs a fuzz program. It never writes a file in place and never
// frees an inode (replaced and deleted entries are hard-linked or moved
// into hold/): a tracked path whose stat data git finds unchanged then has
// its committed content for certain, so git's stat-based answer is the
// content's answer and does not depend on the clock or on inode reuse.
type fzRepo struct {
	*dtRepo
	hold  string
	n     int
	trace []string
}

func (r *fzRepo) stash(p string) {
	if _, err := os.Lstat(p); err != nil {
		return
	}
	r.n++
	if err := os.Rename(p, filepath.Join(r.hold, fmt.Sprint(r.n))); err != nil {
		r.t.Fatal(err)
	}
}

// put gives rel the content in a new inode, keeping the old one alive.
func (r *fzRepo) put(rel, content string, mode os.FileMode, mtime *time.Time) {
	p := r.path(rel)
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		r.stash(p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.stash(filepath.Dir(p)) // a file where a directory must go
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return // a parent further up is a file; leave it
		}
	}
	r.n++
	tmp := filepath.Join(r.hold, fmt.Sprintf("tmp%d", r.n))
	if err := os.WriteFile(tmp, []byte(content), mode); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Chmod(tmp, mode); err != nil {
		r.t.Fatal(err)
	}
	if mtime != nil {
		if err := os.Chtimes(tmp, *mtime, *mtime); err != nil {
			r.t.Fatal(err)
		}
	}
	if _, err := os.Lstat(p); err == nil {
		r.n++
		if err := os.Link(p, filepath.Join(r.hold, fmt.Sprint(r.n))); err != nil {
			r.t.Fatal(err)
		}
	}
	if err := os.Rename(tmp, p); err != nil {
		r.t.Fatal(err)
	}
}

func (r *fzRepo) gitOp(args ...string) {
	r.trace = append(r.trace, "git "+strings.Join(args, " "))
	dtGit(r.root, args...) // failures (nothing to commit, a path not there) are part of the program
}

func (r *fzRepo) op(code, arg byte) {
	rel := fzPaths[int(arg)%len(fzPaths)]
	j := int(arg) / len(fzPaths)
	p := r.path(rel)
	fi, statErr := os.Lstat(p)
	regular := statErr == nil && fi.Mode().IsRegular()
	switch code % 14 {
	case 0:
		c := fzContents[j%len(fzContents)]
		r.trace = append(r.trace, fmt.Sprintf("write %s %q", rel, c))
		r.put(rel, c, 0o644, nil)
	case 1:
		if !regular {
			return
		}
		b, err := os.ReadFile(p)
		if err != nil {
			r.t.Fatal(err)
		}
		for i := range b {
			b[i] ^= 1
		}
		mt := fi.ModTime()
		r.trace = append(r.trace, fmt.Sprintf("same-size %s %q keeping mtime", rel, b))
		r.put(rel, string(b), fi.Mode().Perm(), &mt)
	case 2:
		r.trace = append(r.trace, "delete "+rel)
		r.stash(p)
	case 3:
		r.trace = append(r.trace, "mkdir "+rel)
		if statErr == nil && !fi.IsDir() {
			r.stash(p)
		}
		os.MkdirAll(p, 0o755) // may fail under a file parent; fine
	case 4:
		if !regular || runtime.GOOS == "windows" {
			return
		}
		mode := os.FileMode(0o755)
		if fi.Mode()&0o100 != 0 {
			mode = 0o644
		}
		r.trace = append(r.trace, fmt.Sprintf("chmod %o %s", mode, rel))
		if err := os.Chmod(p, mode); err != nil {
			r.t.Fatal(err)
		}
	case 5:
		if runtime.GOOS == "windows" {
			return
		}
		target := fzTargets[j%len(fzTargets)]
		r.trace = append(r.trace, fmt.Sprintf("symlink %s -> %s", rel, target))
		r.stash(p)
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			os.Symlink(target, p)
		}
	case 6:
		pat := fzPatterns[int(arg)%len(fzPatterns)]
		dir := fzIgnoreDirs[j%len(fzIgnoreDirs)]
		gi := filepath.ToSlash(filepath.Join(dir, ".gitignore"))
		if dir == ".git/info" {
			gi = ".git/info/exclude"
		}
		old, _ := os.ReadFile(r.path(gi))
		r.trace = append(r.trace, fmt.Sprintf("ignore %q in %s", pat, gi))
		r.put(gi, string(old)+pat+"\n", 0o644, nil)
	case 7:
		if j%2 == 1 {
			r.gitOp("add", "-f", "--", rel)
		} else {
			r.gitOp("add", "--", rel)
		}
	case 8:
		r.gitOp("add", "-A")
	case 9:
		r.gitOp("commit", "-q", "--allow-empty", "-m", "fuzz")
	case 10:
		r.gitOp("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", rel)
	case 11:
		if !regular {
			return
		}
		r.trace = append(r.trace, "mtime back "+rel)
		r.chtimes(rel, dtOld)
	case 12:
		kv := fzConfigs[j%len(fzConfigs)]
		if kv[0] == "core.excludesFile" {
			// An excludes file outside the repository.
			kv[1] = filepath.Join(r.hold, "..", "excludes")
			pat := fzPatterns[int(arg)%len(fzPatterns)]
			r.trace = append(r.trace, fmt.Sprintf("excludes file %q", pat))
			if err := os.WriteFile(kv[1], []byte(pat+"\n"), 0o644); err != nil {
				r.t.Fatal(err)
			}
		}
		r.gitOp("config", kv[0], kv[1])
	case 13:
		switch j % 8 {
		case 0:
			r.gitOp("add", "-N", "--", rel)
		case 1:
			r.gitOp("update-index", "--skip-worktree", "--", rel)
		case 2:
			r.gitOp("update-index", "--assume-unchanged", "--", rel)
		case 3:
			r.gitOp("reset", "-q")
		case 4:
			// Every entry not older than the index is racy: git re-hashes.
			r.trace = append(r.trace, "index mtime back")
			os.Chtimes(dtIndexFile(r.root), dtOld, dtOld)
		case 5:
			r.gitOp("update-index", "--index-version", "4")
		case 6:
			// A plain git status refreshes the index and writes it back
			// (with an untracked cache if so configured).
			r.gitOp("status", "--porcelain")
		case 7:
			r.gitOp("update-index", "--untracked-cache")
		}
	}
}

func FuzzDirty(f *testing.F) {
	dtRequireGit(f)
	dtEnv(f)
	// Programs are pairs of bytes (op, argument); see fzRepo.op.
	f.Add([]byte{})
	f.Add([]byte{1, 0})                          // same-size write of a.txt, mtime kept
	f.Add([]byte{0, 8, 6, 1, 6, 0})              // new.txt, then ignore patterns
	f.Add([]byte{0, 12, 6, 4, 7, 12, 9, 0})      // d3/keep.log, ignore, add, commit
	f.Add([]byte{1, 2, 8, 0, 1, 2, 11, 2})       // change, stage, change back, mtime back
	f.Add([]byte{3, 14, 2, 2, 13, 16, 10, 3})    // mkdir d1, delete, skip-worktree, rm --cached
	f.Add([]byte{4, 0, 12, 0, 5, 7, 13, 64})     // chmod, fileMode=false, symlink, racy index
	f.Add([]byte{6, 16, 0, 9, 0, 11, 12, 17, 8}) // nested ignores, untracked names, showUntracked=no
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 2*fzMaxOps {
			prog = prog[:2*fzMaxOps]
		}
		base := t.TempDir()
		r := &fzRepo{dtRepo: &dtRepo{t: t, root: filepath.Join(base, "repo")}, hold: filepath.Join(base, "hold")}
		if err := os.Mkdir(r.hold, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := dtGit(base, "-c", "init.defaultBranch=main", "init", "-q", "--template=", r.root); err != nil {
			t.Fatal(err)
		}
		for _, rel := range fzTracked {
			r.write(rel, "aaaa")
		}
		r.write(".gitignore", "*.bin\n")
		r.commitAll("base")
		for i := 0; i+1 < len(prog); i += 2 {
			r.op(prog[i], prog[i+1])
		}
		got, err := dtDirtyOf(t, r.root, false)
		if err != nil {
			t.Fatalf("Dirty: %v\nprogram:\n  %s", err, strings.Join(r.trace, "\n  "))
		}
		out, err := dtPorcelain(r.root)
		if err != nil {
			t.Fatal(err)
		}
		if got != (out != "") {
			t.Fatalf("Dirty = %v, git status --porcelain:\n%s\nprogram:\n  %s", got, out, strings.Join(r.trace, "\n  "))
		}
	})
}

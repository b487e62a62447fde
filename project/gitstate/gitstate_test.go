package gitstate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// These tests build real repositories with the git CLI and hold the
// package's answers to what git says, with the answer each scenario
// expects written down too.

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed: .ci/run installs it, and these tests need it")
		}
		t.Skip("git is not installed")
	}
}

// testEnv is an environment with a home of its own and no system config,
// so the user's git config cannot change an answer.
func testEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
}

func git(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo is a repository on branch main with one commit of a.txt and
// src/b.txt, in a directory named repo (symlinks resolved).
func newRepo(t *testing.T, env []string, initArgs ...string) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "repo")
	git(t, env, base, append([]string{"init", "-q", "-b", "main"}, append(initArgs, dir)...)...)
	write(t, filepath.Join(dir, "a.txt"), "a\n")
	write(t, filepath.Join(dir, "src", "b.txt"), "b\n")
	git(t, env, dir, "add", "-A")
	git(t, env, dir, "commit", "-q", "-m", "first")
	return dir
}

func open(t *testing.T, env []string, dir string) *Repo {
	t.Helper()
	return Open(context.Background(), dir, Options{Env: env})
}

// porcelain is git's own answer.
func porcelain(t *testing.T, env []string, dir string) []string {
	t.Helper()
	lines := []string{}
	for _, l := range strings.Split(git(t, env, dir, "status", "--porcelain"), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// check asks for the state and git_status and holds both to git and to
// want: Dirty is true exactly when git_status, and git, list something.
func check(t *testing.T, env []string, dir string, wantStatus []string) State {
	t.Helper()
	r := open(t, env, dir)
	if r == nil {
		t.Fatalf("Open(%s) = nil in a repository", dir)
	}
	st := r.State(context.Background())
	if st.Warning != "" {
		t.Fatalf("State: warning %q", st.Warning)
	}
	status, err := r.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if git := porcelain(t, env, dir); !reflect.DeepEqual(git, wantStatus) {
		t.Fatalf("git status --porcelain = %q, the test expects %q", git, wantStatus)
	}
	if !reflect.DeepEqual(status, wantStatus) {
		t.Errorf("Status = %q, want %q", status, wantStatus)
	}
	if st.Dirty != (len(wantStatus) > 0) {
		t.Errorf("Dirty = %v, but git_status is %q", st.Dirty, status)
	}
	return st
}

func TestStateClean(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	// Asked from a subdirectory, as fledge is when run from one.
	r := open(t, env, filepath.Join(dir, "src"))
	st := r.State(context.Background())
	want := State{Branch: "main", Remote: "origin", Root: dir}
	if st != want {
		t.Fatalf("State = %+v, want %+v", st, want)
	}
	if log, err := r.Log(context.Background()); err != nil || len(log) != 1 || !strings.HasSuffix(log[0], " first") {
		t.Errorf("Log = %q, %v", log, err)
	}
}

// The case go-git's Status got wrong: `build[!o]` ignores "builda" but not
// "buildo", and ignored files alone leave the worktree clean.
func TestStateIgnoreRulesAsGit(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	write(t, filepath.Join(dir, ".gitignore"), "build[!o]\n*.log\n")
	git(t, env, dir, "add", ".gitignore")
	git(t, env, dir, "commit", "-q", "-m", "ignore")
	write(t, filepath.Join(dir, "builda"), "x")
	write(t, filepath.Join(dir, "debug.log"), "x")
	write(t, filepath.Join(dir, "src", "trace.log"), "x")
	check(t, env, dir, []string{})
	write(t, filepath.Join(dir, "buildo"), "x")
	check(t, env, dir, []string{"?? buildo"})
}

// `git sparse-checkout set` turns on extensions.worktreeConfig, which
// go-git refuses to open: the state is still git's.
func TestStateSparseCheckout(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	git(t, env, dir, "sparse-checkout", "set", "--sparse-index", "src")
	if cfg := git(t, env, dir, "config", "extensions.worktreeConfig"); strings.TrimSpace(cfg) != "true" {
		t.Fatalf("extensions.worktreeConfig = %q", cfg)
	}
	check(t, env, dir, []string{})
	write(t, filepath.Join(dir, "src", "b.txt"), "changed\n")
	check(t, env, dir, []string{" M src/b.txt"})
}

func TestStateSHA256(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env, "--object-format=sha256")
	check(t, env, dir, []string{})
	write(t, filepath.Join(dir, "a.txt"), "changed\n")
	st := check(t, env, dir, []string{" M a.txt"})
	if st.Branch != "main" {
		t.Errorf("Branch = %q", st.Branch)
	}
}

// A repository git cannot open is still a repository: dirty, with the
// reason, never "no repository". git 2.39 knows no reftable (2.45 does),
// which stands here for every extension git does not know.
func TestStateFailsClosed(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	for _, ext := range []string{"refStorage=reftable", "fledgeTestUnknown=yes"} {
		dir := newRepo(t, env)
		key, value, _ := strings.Cut(ext, "=")
		git(t, env, dir, "config", "core.repositoryFormatVersion", "1")
		git(t, env, dir, "config", "extensions."+key, value)
		if out, err := exec.Command("git", "-C", dir, "status").CombinedOutput(); err == nil {
			t.Logf("this git opens extensions.%s (%s): nothing to fail closed on", key, out)
			continue
		}
		r := open(t, env, filepath.Join(dir, "src"))
		if r == nil {
			t.Fatalf("extensions.%s: Open = nil", key)
		}
		st := r.State(context.Background())
		if !st.Dirty || st.Root != dir || !strings.Contains(st.Warning, "extension") {
			t.Errorf("extensions.%s: State = %+v, want dirty with a warning naming the extension", key, st)
		}
		if s, err := r.Status(context.Background()); err == nil {
			t.Errorf("extensions.%s: Status = %q, want an error", key, s)
		}
	}
}

// Config that git reads and a reimplementation easily misses:
// GIT_CONFIG_COUNT, and GIT_DIR with GIT_WORK_TREE.
func TestStateEnvironmentConfig(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	write(t, filepath.Join(dir, "new.txt"), "x")
	check(t, env, dir, []string{"?? new.txt"})
	// Each way git takes config that a reader of config files misses.
	sysConfig := filepath.Join(t.TempDir(), "gitconfig")
	write(t, sysConfig, "[status]\n\tshowUntrackedFiles = no\n")
	noSystem := []string{}
	for _, kv := range env {
		if kv != "GIT_CONFIG_NOSYSTEM=1" {
			noSystem = append(noSystem, kv)
		}
	}
	hasConfig := filepath.Join(t.TempDir(), "hasconfig")
	write(t, hasConfig, "[status]\n\tshowUntrackedFiles = no\n")
	git(t, env, dir, "config", "remote.origin.url", "https://example.com/o/r.git")
	for name, extra := range map[string][]string{
		"GIT_CONFIG_COUNT":      {"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=status.showUntrackedFiles", "GIT_CONFIG_VALUE_0=no"},
		"GIT_CONFIG_PARAMETERS": {"GIT_CONFIG_PARAMETERS='status.showuntrackedfiles'='no'"},
		"GIT_CONFIG_SYSTEM":     {"GIT_CONFIG_SYSTEM=" + sysConfig},
	} {
		base := env
		if name == "GIT_CONFIG_SYSTEM" {
			base = noSystem
		}
		t.Run(name, func(t *testing.T) {
			check(t, append(base[:len(base):len(base)], extra...), dir, []string{})
		})
	}
	// includeIf "hasconfig:", evaluated against the repository's remotes.
	home := filepath.Join(t.TempDir(), "home")
	write(t, filepath.Join(home, ".gitconfig"), `[includeIf "hasconfig:remote.*.url:https://example.com/**"]`+"\n\tpath = "+hasConfig+"\n")
	withHome := []string{}
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") {
			withHome = append(withHome, kv)
		}
	}
	withHome = append(withHome, "HOME="+home)
	check(t, withHome, dir, []string{})
	git(t, env, dir, "config", "remote.origin.url", "https://elsewhere.example/o/r.git")
	check(t, withHome, dir, []string{"?? new.txt"})

	// A work tree whose git directory is elsewhere, named by GIT_DIR.
	gitDir := filepath.Join(filepath.Dir(dir), "elsewhere.git")
	if err := os.Rename(filepath.Join(dir, ".git"), gitDir); err != nil {
		t.Fatal(err)
	}
	if r := open(t, env, dir); r != nil {
		t.Fatalf("no .git and no GIT_DIR: Open = %+v", r)
	}
	moved := append(env[:len(env):len(env)], "GIT_DIR="+gitDir, "GIT_WORK_TREE="+dir)
	st := check(t, moved, dir, []string{"?? new.txt"})
	if st.Root != dir || st.Branch != "main" {
		t.Errorf("State = %+v", st)
	}
}

func TestStateRemotes(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	git(t, env, dir, "remote", "add", "upstream", "https://example.com/up.git")
	git(t, env, dir, "remote", "add", "fork", "https://user:ghp_secret@example.com/fork.git?x=1")
	st := open(t, env, dir).State(context.Background())
	if st.Remote != "fork" || st.RemoteURL != "https://example.com/fork.git" {
		t.Errorf("without origin: remote %q %q, want the first by name without credentials", st.Remote, st.RemoteURL)
	}
	git(t, env, dir, "remote", "add", "origin", "gh:o/r")
	git(t, env, dir, "config", "url.https://github.com/.insteadOf", "gh:")
	st = open(t, env, dir).State(context.Background())
	if st.Remote != "origin" || st.RemoteURL != "https://github.com/o/r" {
		t.Errorf("origin: remote %q %q, want origin with insteadOf applied", st.Remote, st.RemoteURL)
	}
	// Detached HEAD, as git rev-parse --abbrev-ref says it.
	git(t, env, dir, "checkout", "-q", "--detach")
	if st := open(t, env, dir).State(context.Background()); st.Branch != "HEAD" {
		t.Errorf("detached: Branch = %q", st.Branch)
	}
}

func TestTagsAndLog(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	for _, tag := range []string{"v1.2.0", "v1.10.0", "v1.9.0", "v2.0.0-rc1"} {
		git(t, env, dir, "tag", tag)
	}
	git(t, env, dir, "commit", "-q", "--allow-empty", "-m", "second\n\nbody")
	// Config that would decorate, colour or sign the log is not obeyed.
	git(t, env, dir, "config", "log.decorate", "full")
	git(t, env, dir, "config", "color.ui", "always")
	r := open(t, env, dir)
	tags, err := r.Tags(context.Background())
	if want := []string{"v2.0.0-rc1", "v1.10.0", "v1.9.0", "v1.2.0"}; err != nil || !reflect.DeepEqual(tags, want) {
		t.Errorf("Tags = %q, %v; want %q", tags, err, want)
	}
	log, err := r.Log(context.Background())
	if err != nil || len(log) != 2 || !strings.HasSuffix(log[0], " second") || strings.Contains(log[0], "\x1b") || strings.Contains(log[0], "HEAD") {
		t.Errorf("Log = %q, %v", log, err)
	}

	// A branch without commits: its name, and empty lists.
	unborn := filepath.Join(t.TempDir(), "unborn")
	git(t, env, t.TempDir(), "init", "-q", "-b", "trunk", unborn)
	r = open(t, env, unborn)
	if st := r.State(context.Background()); st.Branch != "trunk" || st.Dirty || st.Warning != "" {
		t.Errorf("unborn: State = %+v", st)
	}
	if log, err := r.Log(context.Background()); err != nil || len(log) != 0 {
		t.Errorf("unborn: Log = %q, %v", log, err)
	}
}

func TestOpenOutsideARepository(t *testing.T) {
	t.Parallel()
	requireGit(t)
	env := testEnv(t)
	if r := open(t, env, t.TempDir()); r != nil {
		t.Errorf("Open(empty dir) = %+v", r)
	}
	// A bare repository, or the inside of .git, has no work tree.
	bare := filepath.Join(t.TempDir(), "b.git")
	git(t, env, t.TempDir(), "init", "-q", "--bare", bare)
	if r := open(t, env, bare); r != nil {
		t.Errorf("Open(bare) = %+v", r)
	}
	dir := newRepo(t, env)
	if r := open(t, env, filepath.Join(dir, ".git")); r != nil {
		t.Errorf("Open(.git) = %+v", r)
	}
	// A repository whose work tree is the user's home (or above) is not
	// the project's, even when git cannot read it.
	proj := filepath.Join(dir, "src")
	if r := Open(context.Background(), proj, Options{Env: env, Home: dir}); r != nil {
		t.Errorf("home repository: Open = %+v", r)
	}
	if r := Open(context.Background(), proj, Options{Env: env, Home: filepath.Dir(dir)}); r == nil {
		t.Errorf("a work tree inside the home directory was hidden")
	}
}

// Without git there is no answer: a repository is dirty, with the reason.
// Not parallel: it empties PATH.
func TestStateWithoutGit(t *testing.T) {
	requireGit(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	t.Setenv("PATH", t.TempDir())
	st := open(t, env, dir).State(context.Background())
	if !st.Dirty || st.Root != dir || !strings.Contains(st.Warning, "not installed") {
		t.Errorf("State = %+v", st)
	}
	if r := open(t, env, t.TempDir()); r != nil {
		t.Errorf("outside a repository: Open = %+v", r)
	}
}

// A git that does not answer is stopped, and the answer fails closed:
// here an include names a FIFO, which git waits on forever.
func TestStateTimeout(t *testing.T) {
	t.Parallel()
	requireGit(t)
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	env := testEnv(t)
	dir := newRepo(t, env)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if out, err := exec.Command("mkfifo", fifo).CombinedOutput(); err != nil {
		t.Fatalf("mkfifo: %v %s", err, out)
	}
	git(t, env, dir, "config", "include.path", fifo)
	r := Open(context.Background(), dir, Options{Env: env, Timeout: time.Second})
	if r == nil {
		t.Fatal("Open = nil")
	}
	st := r.State(context.Background())
	if !st.Dirty || !strings.Contains(st.Warning, "no answer within") {
		t.Errorf("State = %+v", st)
	}
}

// A repository owned by someone else, which git refuses to read
// (safe.directory), is reported dirty with git's reason. Only root can
// give a repository away.
func TestStateRefusedRepository(t *testing.T) {
	t.Parallel()
	requireGit(t)
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root to change a repository's owner")
	}
	env := testEnv(t)
	dir := newRepo(t, env)
	if out, err := exec.Command("chown", "-R", "65534:65534", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	st := open(t, env, dir).State(context.Background())
	if !st.Dirty || st.Root != dir || !strings.Contains(st.Warning, "dubious ownership") {
		t.Errorf("State = %+v", st)
	}
}

package gitstate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// gitShim puts a git first on PATH that logs each invocation's arguments,
// one line each, and runs the real git; it returns the log's path.
func gitShim(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the shim is a shell script")
	}
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	shim := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// calls are the git invocations logged since the last call, which it
// forgets.
func calls(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// stateCounting opens dir and asks its state, as a run does, and returns
// it with the git processes that took.
func stateCounting(t *testing.T, log string, env []string, dir string) (*State, []string) {
	t.Helper()
	calls(t, log)
	r := Open(context.Background(), dir, Options{Env: env})
	if r == nil {
		return nil, calls(t, log)
	}
	st := r.State(context.Background())
	return &st, calls(t, log)
}

// A run in a plain repository starts one git process, git status, and
// gets the answer the full inspection gets: branch, dirtiness, the
// remote with the user's insteadOf applied.
func TestStateOneGitProcess(t *testing.T) {
	log := gitShim(t)
	env := testEnv(t)
	home := strings.TrimPrefix(env[1], "HOME=")
	write(t, filepath.Join(home, ".gitconfig"), "[url \"https://example.com/\"]\n\tinsteadOf = ex:\n")
	dir := newRepo(t, env)
	git(t, env, dir, "remote", "add", "origin", "ex:team/project.git")
	git(t, env, dir, "remote", "add", "backup", "https://backup.example.com/p.git")
	sub := filepath.Join(dir, "src")

	for _, dirty := range []bool{false, true} {
		if dirty {
			write(t, filepath.Join(dir, "a.txt"), "changed\n")
		}
		st, got := stateCounting(t, log, env, sub)
		if len(got) != 1 || !strings.Contains(got[0], "status --porcelain=v2") {
			t.Fatalf("dirty=%v: git ran %d times: %q; want once, git status", dirty, len(got), got)
		}
		want := State{Branch: "main", Dirty: dirty, Remote: "origin", RemoteURL: "https://example.com/team/project.git", Root: dir}
		if st == nil || *st != want {
			t.Fatalf("dirty=%v: State = %+v, want %+v", dirty, st, want)
		}
		// The full inspection (GIT_CEILING_DIRECTORIES sends Open there)
		// gives the same answer with its four processes.
		full, got := stateCounting(t, log, append(env, "GIT_CEILING_DIRECTORIES=/nonexistent"), sub)
		if len(got) < 4 {
			t.Fatalf("the full inspection ran git %d times: %q", len(got), got)
		}
		if full == nil || *full != want {
			t.Fatalf("dirty=%v: the full inspection says %+v, the one-process path %+v", dirty, full, want)
		}
	}
}

// Outside a repository, no git process starts.
func TestStateOutsideARepositoryRunsNoGit(t *testing.T) {
	log := gitShim(t)
	st, got := stateCounting(t, log, testEnv(t), t.TempDir())
	if st != nil || len(got) != 0 {
		t.Fatalf("outside a repository: state %+v, git ran %q", st, got)
	}
}

// What the one-process path cannot read with certainty sends Open to the
// full inspection, and the filter drivers it defines still never run: a
// driver in an included file, in a submodule added without .gitmodules
// (an embedded repository), and behind core.worktree.
func TestStateFallsBackToTheFullInspection(t *testing.T) {
	log := gitShim(t)
	env := testEnv(t)
	marks := t.TempDir()
	evil := func(name string) string {
		return "[filter \"evil\"]\n\tclean = touch " + filepath.Join(marks, name) + "; cat\n\trequired = true\n"
	}
	touchAll := func(dir string) {
		// A file whose stat data changed is run through its clean filter.
		write(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=evil\n")
		git(t, env, dir, "add", ".gitattributes")
		git(t, env, dir, "commit", "-q", "-m", "attrs")
		write(t, filepath.Join(dir, "a.txt"), "a\n")
	}

	included := newRepo(t, env)
	touchAll(included)
	write(t, filepath.Join(included, ".git", "evil.cfg"), evil("include"))
	git(t, env, included, "config", "include.path", "evil.cfg")

	outer := newRepo(t, env)
	inner := filepath.Join(outer, "inner")
	git(t, env, outer, "init", "-q", "-b", "main", inner)
	write(t, filepath.Join(inner, "a.txt"), "a\n")
	git(t, env, inner, "add", "-A")
	git(t, env, inner, "commit", "-q", "-m", "inner")
	touchAll(inner)
	write(t, filepath.Join(inner, ".git", "config"), string(readFile(t, filepath.Join(inner, ".git", "config")))+evil("embedded"))
	git(t, env, outer, "add", "inner") // a gitlink, no .gitmodules
	git(t, env, outer, "commit", "-q", "-m", "embedded")

	for name, dir := range map[string]string{"include": included, "embedded": outer} {
		st, got := stateCounting(t, log, env, dir)
		if st == nil || st.Warning != "" {
			t.Errorf("%s: State = %+v", name, st)
		}
		if len(got) < 4 {
			t.Errorf("%s: git ran %d times (%q): the one-process path was taken", name, len(got), got)
		}
		if _, err := os.Stat(filepath.Join(marks, name)); err == nil {
			t.Errorf("%s: the repository's filter driver ran", name)
		}
		// The scenario is real: git status, as the user runs it, runs the
		// driver.
		git(t, env, dir, "status", "--porcelain")
		if _, err := os.Stat(filepath.Join(marks, name)); err != nil {
			t.Errorf("%s: git status did not run the driver either: the test proves nothing", name)
		}
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A git status that does not answer in time fails closed at once: the
// one-process path does not ask again through the full inspection.
func TestStateTimeoutFailsClosedOnce(t *testing.T) {
	log := gitShim(t)
	env := testEnv(t)
	dir := newRepo(t, env)
	// A clean filter that never ends, from the user's own config (which
	// fledge leaves in force, as for every git status the user runs): the
	// status waits for it past the timeout.
	home := strings.TrimPrefix(env[1], "HOME=")
	write(t, filepath.Join(home, ".gitconfig"), "[filter \"slow\"]\n\tclean = sleep 10\n")
	write(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=slow\n")
	write(t, filepath.Join(dir, "a.txt"), "changed\n")
	calls(t, log)
	// The timeout leaves a busy machine time to start the logging shim
	// (a git killed before it logs would count as none), and the filter
	// outlasts it many times over.
	r := Open(context.Background(), dir, Options{Env: env, Timeout: 2 * time.Second})
	if r == nil {
		t.Fatal("Open = nil")
	}
	st := r.State(context.Background())
	if !st.Dirty || !strings.Contains(st.Warning, "no answer within") {
		t.Errorf("State = %+v", st)
	}
	if got := calls(t, log); len(got) != 1 {
		t.Errorf("git ran %d times: %q; want once", len(got), got)
	}
}

package runner

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/manifest"
)

// The init message's dirty flag follows the project's worktree as git
// status would, and a worktree that cannot be read counts as dirty
// rather than clean.
func TestInitGitDirtyFollowsTheWorktree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "goecho", manifest.Capabilities{})
	repo, err := git.PlainInit(e.project, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}
	if _, err := wt.Commit("init", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	dirty := func() any {
		t.Helper()
		e.stdout.Reset()
		e.mustRun(Request{Command: "goecho", Args: []string{"echo"}, NonInteractive: true})
		init := decodeEcho(t, e.stdout.String())["init"].(map[string]any)
		return init["project"].(map[string]any)["git"].(map[string]any)["dirty"]
	}
	if got := dirty(); got != false {
		t.Fatalf("dirty = %v in a freshly committed project, want false", got)
	}
	writeFile(t, filepath.Join(e.project, "new.txt"), "x\n", 0o644)
	if got := dirty(); got != true {
		t.Fatalf("dirty = %v with an untracked file, want true", got)
	}
	if err := os.Remove(filepath.Join(e.project, "new.txt")); err != nil {
		t.Fatal(err)
	}
	if got := dirty(); got != false {
		t.Fatalf("dirty = %v once the file is gone, want false", got)
	}
	// An index git refuses: fledge says dirty, not clean, and why.
	index := filepath.Join(e.project, ".git", "index")
	if err := os.WriteFile(index, []byte("DIRC\x00\x00\x00\x09 not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := dirty(); got != true {
		t.Fatalf("dirty = %v with a corrupt index, want true (fail closed)", got)
	}
	if w := e.ui.warnings(); !strings.Contains(w, "could not be read, so plugins are told it is dirty") || !strings.Contains(w, "index") {
		t.Errorf("warnings: %q", w)
	}
}

// init's dirty and the metadata key git_status are one answer, git's: with
// only ignored files around (`build[!o]` ignores builda, and go-git's
// matcher also buildo) both say clean; with buildo, which git does not
// ignore, both list it.
func TestInitDirtyAgreesWithGitStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.project, ".gitignore"), "build[!o]\n*.log\n", 0o644)
	repo, err := git.PlainInit(e.project, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}
	if _, err := wt.Commit("init", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.project, "builda"), "x", 0o644)
	writeFile(t, filepath.Join(e.project, "debug.log"), "x", 0o644)
	dir := e.driver(manifest.Capabilities{Metadata: true},
		`?{"type":"metadata","id":"1","keys":["git_status"]}`)
	answers := func() (dirty any, status any) {
		t.Helper()
		os.Remove(filepath.Join(dir, "responses.log"))
		e.mustRun(Request{Command: "drive"})
		data, err := os.ReadFile(filepath.Join(dir, "init.json"))
		if err != nil {
			t.Fatal(err)
		}
		var init map[string]any
		if err := json.Unmarshal(data, &init); err != nil {
			t.Fatal(err)
		}
		resps := e.responses(dir)
		if len(resps) != 1 {
			t.Fatalf("responses: %v", resps)
		}
		return init["project"].(map[string]any)["git"].(map[string]any)["dirty"], resps[0]["value"].(map[string]any)["git_status"]
	}
	if dirty, status := answers(); dirty != false || !reflect.DeepEqual(status, []any{}) {
		t.Errorf("ignored files only: dirty %v, git_status %v; want false, []", dirty, status)
	}
	writeFile(t, filepath.Join(e.project, "buildo"), "x", 0o644)
	if dirty, status := answers(); dirty != true || !reflect.DeepEqual(status, []any{"?? buildo"}) {
		t.Errorf("with buildo: dirty %v, git_status %v; want true, [?? buildo]", dirty, status)
	}
}

// A repository go-git cannot open (`git sparse-checkout set` turns on
// extensions.worktreeConfig) still has its git state: git's.
func TestInitGitInSparseCheckout(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed: .ci/run installs it")
		}
		t.Skip("git is not installed")
	}
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "goecho", manifest.Capabilities{})
	gitCLI := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = e.project
		cmd.Env = append(e.environ, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeFile(t, filepath.Join(e.project, "docs", "guide.md"), "guide\n", 0o644)
	gitCLI("init", "-q", "-b", "main")
	gitCLI("add", "-A")
	gitCLI("commit", "-q", "-m", "init")
	gitCLI("sparse-checkout", "set", "--no-cone", "/*", "!/docs/")
	state := func() any {
		t.Helper()
		e.stdout.Reset()
		e.mustRun(Request{Command: "goecho", Args: []string{"echo"}, NonInteractive: true})
		return decodeEcho(t, e.stdout.String())["init"].(map[string]any)["project"].(map[string]any)["git"]
	}
	if g, ok := state().(map[string]any); !ok || g["dirty"] != false || g["branch"] != "main" {
		t.Fatalf("git = %v, want main, clean", g)
	}
	writeFile(t, filepath.Join(e.project, "go.mod"), "module changed\n", 0o644)
	if g, ok := state().(map[string]any); !ok || g["dirty"] != true {
		t.Fatalf("git = %v after a change, want dirty", g)
	}
}

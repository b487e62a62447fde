package runner

import (
	"os"
	"path/filepath"
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
	// A corrupt index: git would refuse it; fledge says dirty, not clean.
	index := filepath.Join(e.project, ".git", "index")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0xff // the checksum no longer matches
	if err := os.WriteFile(index, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := dirty(); got != true {
		t.Fatalf("dirty = %v with a corrupt index, want true (fail closed)", got)
	}
}

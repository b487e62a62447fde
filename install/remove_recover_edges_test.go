package install

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// A plugin with an approved post_remove hook whose directory has vanished
// (deleted by hand, a crashed run, a live-linked source that was moved) is
// still removed: nothing can run the hook, so Remove goes on without it,
// as it does for a plugin with no hook (TestRemoveWithMissingDir).
func TestRemoveWithHookAndMissingDir(t *testing.T) {
	t.Parallel()
	unixOnly(t)
	e := newEnv(t)
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", "\n[hooks]\npost_remove = \"echo bye\"\n"), "")
	if _, err := e.installer(Consent{Grant: grants("hooks")}).Install(context.Background(), g.url); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(e.paths.PluginDir(name)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.remover().Remove(context.Background(), name); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	assertGone(t, e)
}

// Recovery deletes only what fledge itself created in plugins/ (a
// staging or trash leftover, or a tree it can prove it placed), never a
// directory plugins.toml does not record: the default FLEDGE_HOME is the
// Rust fledge's own directory, whose command links live in plugins/bin
// (rust-fledge.md §2), and users keep other things there.
func TestRecoverKeepsUnknownDirs(t *testing.T) {
	t.Parallel()
	unixOnly(t)
	e := newEnv(t)
	rustBin := filepath.Join(e.paths.PluginsDir(), "bin")
	if err := os.MkdirAll(rustBin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/true", filepath.Join(rustBin, "fledge-deps")); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(e.paths.PluginsDir(), "my-notes")
	writeFile(t, filepath.Join(notes, "todo.txt"), "keep me", 0o644)
	src := t.TempDir()
	testutil.WriteTree(t, src, pluginFiles("1.0.0", ""))
	if _, err := e.installer(Consent{}).Install(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(rustBin, "fledge-deps")); err != nil {
		t.Errorf("the Rust fledge's plugins/bin link was deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(notes, "todo.txt")); err != nil {
		t.Errorf("an unrecorded user directory was deleted: %v", err)
	}
}

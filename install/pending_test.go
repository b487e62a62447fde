//go:build pending

// Tests for known bugs, kept out of the normal run until they are fixed.
// Run with: go test -tags pending -run Pending ./install

package install

import (
	"context"
	"os"
	"testing"
)

// BUG: a plugin with an approved post_remove hook whose directory has
// vanished (deleted by hand, a crashed run, a live-linked source that was
// moved) can never be removed: Remove fails resolving the dir to run the
// hook and leaves the entry. The same plugin without a post_remove hook is
// removed fine (TestRemoveWithMissingDir). Nothing can run the hook, so
// Remove should warn and go on.
func TestPendingRemoveWithHookAndMissingDir(t *testing.T) {
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

package treehash

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A link that escapes through an inner link is refused: joining the
// link's directory and target lexically (filepath.Join cleans "x/.."
// before symlinks are resolved) would pass it, but when x is itself a link
// to a shallower directory the kernel resolves ".." from where x points. Here lib/a/up -> ../.. (the root: allowed) and
// lib/a/hop -> up/../../plugins.toml, which the kernel resolves to the
// file beside the plugin's directory (e.g. FLEDGE_HOME/plugins.toml when
// the tree is at plugins/<name>), while the lexical form
// root/lib/plugins.toml looks inside.
func TestSymlinkEscapeThroughInnerLinkRefused(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "plugins", "p")
	if err := os.MkdirAll(filepath.Join(root, "lib", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "plugins.toml"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../..", filepath.Join(root, "lib", "a", "up")); err != nil {
		t.Fatal(err)
	}
	hop := filepath.Join(root, "lib", "a", "hop")
	if err := os.Symlink("up/../../plugins.toml", hop); err != nil {
		t.Fatal(err)
	}
	// The kernel really does leave the tree through it.
	if data, err := os.ReadFile(hop); err != nil || string(data) != "secret" {
		t.Fatalf("setup: read through link = %q, %v", data, err)
	}
	if _, err := Hash(root, Options{}); !errors.Is(err, ErrUnsafeTree) {
		t.Errorf("Hash = %v, want ErrUnsafeTree for lib/a/hop", err)
	}
}

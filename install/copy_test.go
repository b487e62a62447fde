package install

import (
	"os"
	"path/filepath"
	"testing"
)

// A local plugin checked out as a git worktree or submodule has a .git
// file, not a directory: it is left out, and nothing after it is.
func TestCopyTreeSkipsAGitFileOnly(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	for name, body := range map[string]string{
		".git":        "gitdir: /elsewhere/.git/worktrees/x\n",
		".gitignore":  "bin/\n",
		"plugin.toml": "[plugin]\n",
		"bin/run":     "#!/bin/sh\n",
	} {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".gitignore", "plugin.toml", "bin/run"} {
		if _, err := os.Stat(filepath.Join(dst, filepath.FromSlash(name))); err != nil {
			t.Errorf("%s was not copied: %v", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dst, ".git")); !os.IsNotExist(err) {
		t.Errorf(".git was copied (%v)", err)
	}
}

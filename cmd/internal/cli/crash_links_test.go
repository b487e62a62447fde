//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// A crash between placing a plugin (tree and command links) and recording
// it: the next command puts back the recorded state, links included.

// A fresh install killed in post_install, after its tree and links were
// placed: recovery removes the links with the tree, so no dangling
// $FLEDGE_HOME/bin/fledge-<command> is left.
func TestCrashBeforeRecordRemovesLinks(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("cp", hPlugin("fledge-plugin-cp", "1.0.0", "\n[hooks]\npost_install = '"+killSelf("cp-killed")+"'\n"))
	e.crashed("plugins", "install", "./cp", "--copy", "--yes", "--grant", "hooks")
	e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
	e.ok("plugins", "install", "./other", "--copy", "--json")
	e.absent("fledge-plugin-cp", "cp")
}

// A force reinstall whose new version adds a command, killed in
// post_install: the old version comes back, and the new command's link
// goes with the new tree.
func TestCrashInReinstallRemovesNewCommandLink(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", ""))
	e.ok("plugins", "install", "./fr", "--copy", "--json")
	e.local("fr", hPlugin("fledge-plugin-fr", "2.0.0", "\n[[commands]]\nname = \"fr2\"\nbinary = \"bin/fr\"\n\n[hooks]\npost_install = '"+killSelf("fr-killed")+"'\n"))
	e.crashed("plugins", "install", "./fr", "--copy", "--force", "--yes", "--grant", "hooks")
	e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
	e.ok("plugins", "install", "./other", "--copy", "--json")
	e.verified("fledge-plugin-fr", "fr")
	if _, err := os.Lstat(filepath.Join(e.fh, "bin", "fledge-fr2")); err == nil {
		t.Error("bin/fledge-fr2 of the never-recorded version 2 survived recovery")
	}
}

// A force reinstall whose new version drops a command, killed in
// post_install (after the old link was removed): recovery brings the old
// tree back with that link.
func TestCrashInReinstallRestoresDroppedCommandLink(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", "\n[[commands]]\nname = \"frold\"\nbinary = \"bin/fr\"\n"))
	e.ok("plugins", "install", "./fr", "--copy", "--json")
	e.local("fr", hPlugin("fledge-plugin-fr", "2.0.0", "\n[hooks]\npost_install = '"+killSelf("fr-killed")+"'\n"))
	e.crashed("plugins", "install", "./fr", "--copy", "--force", "--yes", "--grant", "hooks")
	e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
	e.ok("plugins", "install", "./other", "--copy", "--json")
	e.verified("fledge-plugin-fr", "fr", "frold")
}

// A fresh install over a directory no record owns, killed in post_install:
// recovery keeps no tree, neither the stray directory nor the
// never-recorded new one.
func TestCrashOverUnrecordedDirKeepsNoTree(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	testutil.WriteTree(t, filepath.Join(e.fh, "plugins", "fledge-plugin-cp"), map[string]string{"stray.txt": "x"})
	e.local("cp", hPlugin("fledge-plugin-cp", "1.0.0", "\n[hooks]\npost_install = '"+killSelf("cp-killed")+"'\n"))
	e.crashed("plugins", "install", "./cp", "--copy", "--yes", "--grant", "hooks")
	e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
	e.ok("plugins", "install", "./other", "--copy", "--json")
	if _, err := os.Stat(filepath.Join(e.fh, "plugins", "fledge-plugin-cp", "plugin.toml")); err == nil {
		t.Error("the never-recorded tree of cp is in place after recovery")
	}
	e.noLeftovers()
}

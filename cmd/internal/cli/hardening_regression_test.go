//go:build unix

package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regressions of bugs the hardening pass found (see the commit that fixed
// them): each failed before its fix.

// A crash after the new tree and its command links were placed but before
// the record was written: recovery removes the tree, not the links, so
// $FLEDGE_HOME/bin keeps a dangling fledge-<command>.
func TestHardeningRegressionCrashLeavesLink(t *testing.T) {
	e := newHEnv(t)
	e.local("cp", hPlugin("fledge-plugin-cp", "1.0.0", "\n[hooks]\npost_install = '"+killSelf("cp-killed")+"'\n"))
	e.crashed("plugins", "install", "./cp", "--copy", "--yes", "--grant", "hooks")
	e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
	e.ok("plugins", "install", "./other", "--copy", "--json")
	e.absent("fledge-plugin-cp", "cp")
}

// The same for a force reinstall whose new version adds a command: the old
// version comes back, and the new command's link must go with the new tree.
func TestHardeningRegressionCrashReinstallNewCommandLink(t *testing.T) {
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

// A force reinstall whose new version drops a command: the old link is
// removed before post_install; a crash there, and recovery brings the old
// tree back without its link.
func TestHardeningRegressionCrashReinstallDroppedCommandLink(t *testing.T) {
	e := newHEnv(t)
	e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", "\n[[commands]]\nname = \"frold\"\nbinary = \"bin/fr\"\n"))
	e.ok("plugins", "install", "./fr", "--copy", "--json")
	e.local("fr", hPlugin("fledge-plugin-fr", "2.0.0", "\n[hooks]\npost_install = '"+killSelf("fr-killed")+"'\n"))
	e.crashed("plugins", "install", "./fr", "--copy", "--force", "--yes", "--grant", "hooks")
	e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
	e.ok("plugins", "install", "./other", "--copy", "--json")
	e.verified("fledge-plugin-fr", "fr", "frold")
}

// plugins.toml is written 0600 (renameio's default) while everything else
// in FLEDGE_HOME is 0644/0755 and the Rust fledge wrote it 0644: a home
// provisioned read-only for other users cannot even be listed, and an
// existing 0644 file silently becomes 0600 on the first write.
func TestHardeningRegressionPluginsTomlMode(t *testing.T) {
	e := newHEnv(t)
	e.local("a", hPlugin("fledge-plugin-a", "1.0.0", ""))
	e.ok("plugins", "install", "./a", "--copy", "--json")
	fi, err := os.Stat(filepath.Join(e.fh, "plugins.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o044 != 0o044 {
		t.Errorf("plugins.toml is %v, want readable like the rest of FLEDGE_HOME (0644)", fi.Mode().Perm())
	}
}

// A token alone as the URL's user (https://TOKEN@host/..., the usual form
// for GitHub tokens) is not redacted: go-git's error repeats the URL.
func TestHardeningRegressionTokenOnlyURLShown(t *testing.T) {
	e := newHEnv(t)
	const secret = "s3cretTOKEN"
	for _, args := range [][]string{
		{"plugins", "install", "https://" + secret + "@127.0.0.1:1/o/fledge-plugin-x@v1.0.0"},
		{"plugins", "install", "https://" + secret + "@127.0.0.1:1/o/fledge-plugin-x", "--json"},
	} {
		r := e.run(args...)
		if r.code != 1 || bytes.Contains(r.out, []byte(secret)) || bytes.Contains(r.err, []byte(secret)) {
			t.Errorf("the token was printed\n%v", r)
		}
	}
}

// sync's fetch errors name the entry's source unredacted.
func TestHardeningRegressionSyncShowsCredentials(t *testing.T) {
	e := newHEnv(t)
	const secret = "s3cretTOKEN"
	team := filepath.Join(e.work, "team.toml")
	os.WriteFile(team, []byte(`format_version = 1

[[plugins]]
name = "fledge-plugin-x"
source = "https://user:`+secret+`@127.0.0.1:1/o/fledge-plugin-x"
url = "https://user:`+secret+`@127.0.0.1:1/o/fledge-plugin-x"
version = "1.0.0"
installed = "2026-01-01T00:00:00Z"
commands = []
kind = "git"
commit = "`+strings.Repeat("a", 40)+`"
`), 0o644)
	for _, args := range [][]string{{"plugins", "sync", "--file", team}, {"plugins", "sync", "--file", team, "--json"}} {
		r := e.run(args...)
		if r.code != 1 || bytes.Contains(r.out, []byte(secret)) || bytes.Contains(r.err, []byte(secret)) {
			t.Errorf("sync printed the credential\n%v", r)
		}
	}
}

// A fresh install over a directory no record owns, killed in post_install:
// recovery deletes the old directory and keeps the never-recorded new tree
// (finding H5).
func TestHardeningRegressionCrashOverUnrecordedDir(t *testing.T) {
	e := newHEnv(t)
	hWrite(t, filepath.Join(e.fh, "plugins", "fledge-plugin-cp"), map[string]string{"stray.txt": "x"})
	e.local("cp", hPlugin("fledge-plugin-cp", "1.0.0", "\n[hooks]\npost_install = '"+killSelf("cp-killed")+"'\n"))
	e.crashed("plugins", "install", "./cp", "--copy", "--yes", "--grant", "hooks")
	e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
	e.ok("plugins", "install", "./other", "--copy", "--json")
	if _, err := os.Stat(filepath.Join(e.fh, "plugins", "fledge-plugin-cp", "plugin.toml")); err == nil {
		t.Error("the never-recorded tree of cp is in place after recovery")
	}
	e.noLeftovers()
}

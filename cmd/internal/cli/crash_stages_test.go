//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// killSelf is a hook that kill -9s the fledge process running it, once:
// later runs of the same hook succeed.
func killSelf(marker string) string {
	return `if [ ! -e "$WORK/` + marker + `" ]; then touch "$WORK/` + marker + `"; kill -9 $PPID; sleep 5; fi`
}

// crashed runs fledge and requires it to die of SIGKILL.
func (e *hEnv) crashed(args ...string) {
	e.t.Helper()
	r := e.run(args...)
	if r.signal != syscall.SIGKILL {
		e.t.Fatalf("fledge was not killed by its hook\n%v", r)
	}
}

// listParses: plugins.toml parses, for fledge and for a TOML reader.
func (e *hEnv) listParses() {
	e.t.Helper()
	hJSON(e.t, e.ok("plugins", "list", "--json"))
	e.entries()
}

// kill -9 at each stage of install, reinstall and remove: the next fledge
// command finds the old state or the new one, and cleans up the rest.
func TestCrashAtEachStage(t *testing.T) {
	t.Parallel()

	t.Run("while building", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t)
		e.local("cb", hPlugin("fledge-plugin-cb", "1.0.0", "\n[hooks]\nbuild = '"+killSelf("cb-killed")+"'\n"))
		e.crashed("plugins", "install", "./cb", "--copy", "--yes", "--grant", "hooks")
		e.listParses()
		e.absent("fledge-plugin-cb", "cb")
		staged, _ := os.ReadDir(filepath.Join(e.fh, "plugins", ".staging"))
		if len(staged) == 0 {
			t.Fatal("fixture: the crash left no staging directory to clean up")
		}
		// The next install cleans the dead run's staging directory.
		e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
		e.ok("plugins", "install", "./other", "--copy", "--json")
		e.absent("fledge-plugin-cb", "cb")
		e.verified("fledge-plugin-other", "other")
		e.noLeftovers()
		// And the crashed plugin installs normally afterwards.
		e.ok("plugins", "install", "./cb", "--copy", "--yes", "--grant", "hooks", "--json")
		e.verified("fledge-plugin-cb", "cb")
		e.noLeftovers()
	})

	t.Run("after placing, before recording", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t)
		e.local("cp", hPlugin("fledge-plugin-cp", "1.0.0", "\n[hooks]\npost_install = '"+killSelf("cp-killed")+"'\n"))
		e.crashed("plugins", "install", "./cp", "--copy", "--yes", "--grant", "hooks")
		e.listParses()
		if _, ok := e.entries()["fledge-plugin-cp"]; ok {
			t.Fatal("a plugin killed in post_install was recorded")
		}
		e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
		e.ok("plugins", "install", "./other", "--copy", "--json")
		// The tree, the record and the command link are gone.
		e.absent("fledge-plugin-cp", "cp")
		e.verified("fledge-plugin-other", "other")
		e.noLeftovers()
		e.ok("plugins", "install", "./cp", "--copy", "--yes", "--grant", "hooks", "--json")
		e.verified("fledge-plugin-cp", "cp")
	})

	t.Run("force reinstall, after placing", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t)
		e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", ""))
		e.ok("plugins", "install", "./fr", "--copy", "--json")
		before := e.entries()["fledge-plugin-fr"]
		// Version 2 in place of 1, with the same command; it is killed in
		// post_install, after its tree and links replaced version 1's.
		e.local("fr", hPlugin("fledge-plugin-fr", "2.0.0", "\n[hooks]\npost_install = '"+killSelf("fr-killed")+"'\n"))
		e.crashed("plugins", "install", "./fr", "--copy", "--force", "--yes", "--grant", "hooks")
		e.listParses()
		e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
		e.ok("plugins", "install", "./other", "--copy", "--json")
		p := e.entries()["fledge-plugin-fr"]
		if p.Version != "1.0.0" {
			t.Fatalf("after the crash fr is recorded at %q, want the old 1.0.0", p.Version)
		}
		e.verified("fledge-plugin-fr", "fr")
		if out, err := os.ReadFile(filepath.Join(e.fh, "plugins", "fledge-plugin-fr", "bin", "fr")); err != nil || !strings.Contains(string(out), "1.0.0") {
			t.Errorf("the tree in place is not version 1: %q %v", out, err)
		}
		if !reflect.DeepEqual(p, before) {
			t.Errorf("fr's record changed:\n%+v\nwas\n%+v", p, before)
		}
		e.noLeftovers()
	})

	t.Run("in post_remove", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t)
		e.local("cr", hPlugin("fledge-plugin-cr", "1.0.0", "\n[hooks]\npost_remove = '"+killSelf("cr-killed")+"'\n"))
		e.ok("plugins", "install", "./cr", "--copy", "--yes", "--grant", "hooks", "--json")
		e.crashed("plugins", "remove", "cr")
		e.listParses()
		// The old state: still fully installed.
		e.verified("fledge-plugin-cr", "cr")
		e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
		e.ok("plugins", "install", "./other", "--copy", "--json")
		e.verified("fledge-plugin-cr", "cr")
		e.noLeftovers()
		// The hook now lets it go: removed completely.
		e.ok("plugins", "remove", "cr", "--json")
		e.absent("fledge-plugin-cr", "cr")
		if _, err := os.Stat(filepath.Join(e.fh, "plugins", ".data", "fledge-plugin-cr")); err == nil {
			t.Error("cr's data directory survived its removal")
		}
		e.noLeftovers()
	})

	t.Run("update, after placing", func(t *testing.T) {
		t.Parallel()
		e := newHEnv(t)
		old := e.repo("fledge-plugin-cu", hPlugin("fledge-plugin-cu", "1.0.0", ""))
		e.ok("plugins", "install", "o/fledge-plugin-cu", "--json")
		dir := filepath.Join(e.gh, "o", "fledge-plugin-cu")
		testutil.WriteTree(t, dir, hPlugin("fledge-plugin-cu", "1.1.0", "\n[hooks]\npost_install = '"+killSelf("cu-killed")+"'\n"))
		if _, err := commitAll(openRepoT(t, dir), "1.1.0"); err != nil {
			t.Fatal(err)
		}
		e.crashed("plugins", "update", "cu", "--yes", "--grant", "hooks")
		e.listParses()
		e.local("other", hPlugin("fledge-plugin-other", "1.0.0", ""))
		e.ok("plugins", "install", "./other", "--copy", "--json")
		if p := e.entries()["fledge-plugin-cu"]; p.Commit != old || p.Version != "1.0.0" {
			t.Fatalf("after the crash cu is %s at %s, want 1.0.0 at %s", p.Version, p.Commit, old)
		}
		e.verified("fledge-plugin-cu", "cu")
		e.noLeftovers()
		// The update then goes through.
		e.ok("plugins", "update", "cu", "--yes", "--grant", "hooks", "--json")
		if p := e.entries()["fledge-plugin-cu"]; p.Version != "1.1.0" {
			t.Errorf("update after recovery: cu is %s", p.Version)
		}
		e.verified("fledge-plugin-cu", "cu")
		e.noLeftovers()
	})
}

//go:build unix

package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// readers are the commands that only look at installed plugins, as the
// first command after a crash: each must find the half-changed plugin and
// recover it before it shows, checks or runs anything.
var readers = map[string][]string{
	"run":    {"fr"},
	"list":   {"plugins", "list", "--json"},
	"verify": {"plugins", "verify", "--json"},
	"audit":  {"plugins", "audit", "--json"},
	"json":   {"plugins", "run", "fr", "--json"},
}

// wantTree: plugins/<name>/bin/<cmd> is the version given, and nothing is
// left in the trash — checked on disk, before any other fledge command.
func (e *hEnv) wantTree(name, cmd, version string) {
	e.t.Helper()
	out, err := os.ReadFile(filepath.Join(e.fh, "plugins", name, "bin", cmd))
	if err != nil || !strings.Contains(string(out), version) {
		e.t.Errorf("plugins/%s holds %q (%v), want version %s", name, out, err, version)
	}
	if ents, _ := os.ReadDir(filepath.Join(e.fh, "plugins", ".trash")); len(ents) > 0 {
		e.t.Errorf("the trash still holds %d entries", len(ents))
	}
}

// kill -9 in post_install of a --force reinstall leaves version 2's tree in
// place, version 1's in the trash and version 1 recorded. Whichever reader
// comes first puts version 1 back.
func TestReadersRecoverInterruptedReinstall(t *testing.T) {
	t.Parallel()
	for what, args := range readers {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			e := newHEnv(t)
			e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", ""))
			e.ok("plugins", "install", "./fr", "--copy", "--json")
			e.local("fr", hPlugin("fledge-plugin-fr", "2.0.0", "\n[hooks]\npost_install = '"+killSelf("fr-killed")+"'\n"))
			e.crashed("plugins", "install", "./fr", "--copy", "--force", "--yes", "--grant", "hooks")

			r := e.ok(args...)
			if !strings.Contains(string(r.err), "recovered fledge-plugin-fr") {
				t.Errorf("the recovery was not reported\n%v", r)
			}
			if what == "run" && strings.TrimSpace(string(r.out)) != "fr 1.0.0" {
				t.Errorf("fledge fr ran %q, want the recorded 1.0.0", r.out)
			}
			e.wantTree("fledge-plugin-fr", "fr", "1.0.0")
			if p := e.entries()["fledge-plugin-fr"]; p.Version != "1.0.0" {
				t.Errorf("recorded %s", p.Version)
			}
			e.verified("fledge-plugin-fr", "fr")
			e.noLeftovers()
		})
	}
}

// A remove killed after moving the tree aside and unlinking, before the
// record is written: the plugin is recorded with its tree in the trash.
// The state is made by hand (no hook runs in that window), as a dead
// remove leaves it, and as an older fledge named it (no pid).
func TestReadersRecoverInterruptedRemove(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{strconv.Itoa(dead.Process.Pid) + ".0a1b2c3d4e5f", "0a1b2c3d4e5f"} {
		for what, args := range readers {
			t.Run(what+"/"+suffix, func(t *testing.T) {
				t.Parallel()
				e := newHEnv(t)
				e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", ""))
				e.ok("plugins", "install", "./fr", "--copy", "--json")
				trash := filepath.Join(e.fh, "plugins", ".trash")
				if err := os.MkdirAll(trash, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(e.fh, "plugins", "fledge-plugin-fr"), filepath.Join(trash, "fledge-plugin-fr-"+suffix)); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(filepath.Join(e.fh, "bin", "fledge-fr")); err != nil {
					t.Fatal(err)
				}

				r := e.ok(args...)
				if what == "run" && strings.TrimSpace(string(r.out)) != "fr 1.0.0" {
					t.Errorf("fledge fr ran %q", r.out)
				}
				e.wantTree("fledge-plugin-fr", "fr", "1.0.0")
				e.verified("fledge-plugin-fr", "fr")
				e.noLeftovers()
			})
		}
	}
}

// A fresh install killed in post_install: placed and linked, never
// recorded. A reader clears the tree and its links.
func TestReadersRecoverInterruptedFreshInstall(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("cp", hPlugin("fledge-plugin-cp", "1.0.0", "\n[hooks]\npost_install = '"+killSelf("cp-killed")+"'\n"))
	e.crashed("plugins", "install", "./cp", "--copy", "--yes", "--grant", "hooks")
	if _, err := os.Lstat(filepath.Join(e.fh, "plugins", "fledge-plugin-cp")); err != nil {
		t.Fatalf("fixture: the crash left no tree: %v", err)
	}
	e.ok("plugins", "list", "--json")
	e.absent("fledge-plugin-cp", "cp")
	e.noLeftovers()
}

// A swap in progress belongs to its process: a reader started while it
// holds the lock (here: while its post_install hook runs fledge) neither
// waits for the lock nor touches the swap.
func TestReadersLeaveSwapsInProgressAlone(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", ""))
	e.ok("plugins", "install", "./fr", "--copy", "--json")
	// The hook lists plugins and runs the plugin being replaced, from
	// inside the reinstall that holds the lock and has the old tree in the
	// trash.
	hook := `fledge plugins list --json > "$WORK/list.json" && fledge fr > "$WORK/ran.txt" 2>&1; true`
	e.local("fr", hPlugin("fledge-plugin-fr", "2.0.0", "\n[hooks]\npost_install = '"+hook+"'\n"))
	ctx, cancel := context.WithTimeout(context.Background(), hardTimeout)
	defer cancel()
	cmd := e.command(ctx, "plugins", "install", "./fr", "--copy", "--force", "--yes", "--grant", "hooks", "--json")
	cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(e.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := e.exec(cmd, cmd.Args[1:])
	if r.code != 0 {
		t.Fatalf("reinstall with a hook running fledge\n%v", r)
	}
	if _, err := os.Stat(filepath.Join(e.work, "list.json")); err != nil {
		t.Fatalf("the hook's fledge did not finish: %v", err)
	}
	if out, _ := os.ReadFile(filepath.Join(e.work, "ran.txt")); strings.Contains(string(out), "recovered") {
		t.Errorf("the hook's fledge recovered the swap in progress: %s", out)
	}
	e.wantTree("fledge-plugin-fr", "fr", "2.0.0")
	e.verified("fledge-plugin-fr", "fr")

	// And with the lock held by another process, a reader finishes.
	unlock, err := lockedfile.MutexAt(filepath.Join(e.fh, ".plugins.lock")).Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	e.ok("plugins", "list", "--json")
	e.ok("fr")
}

// When recovery cannot run (here: plugins.toml is damaged, so it cannot
// tell the old tree from the new), nothing runs, nothing is moved, and the
// error says what is half-changed and what recovers it.
func TestRunRefusesWhatCannotBeRecovered(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.local("fr", hPlugin("fledge-plugin-fr", "1.0.0", ""))
	e.ok("plugins", "install", "./fr", "--copy", "--json")
	trash := filepath.Join(e.fh, "plugins", ".trash")
	aside := filepath.Join(trash, "fledge-plugin-fr-0a1b2c3d4e5f")
	if err := os.MkdirAll(trash, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(e.fh, "plugins", "fledge-plugin-fr"), aside); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.fh, "plugins.toml"), []byte("[[plugins]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("fr")
	if r.code != 1 || !strings.Contains(string(r.err), "left fledge-plugin-fr half-changed") ||
		!strings.Contains(string(r.err), "fledge plugins list") {
		t.Errorf("want a refusal naming the plugin and what recovers it\n%v", r)
	}
	if _, err := os.Stat(aside); err != nil {
		t.Errorf("the old tree was moved although recovery could not tell: %v", err)
	}
}

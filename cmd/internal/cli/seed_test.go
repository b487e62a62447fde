package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/runner"
)

// snapshot is every path under dir with its mode, size and modification
// time: what a write anywhere there would change.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A plugin installed into a seed directory runs from it for a home that
// does not have it, and list shows where it is; fledge writes nothing
// there (its store, files and event trail are the home's), a seeded tree
// that changed after the seed was built does not run, and the policy
// applies to a seeded plugin as to any.
func TestSeedDirReadOnly(t *testing.T) {
	t.Parallel()
	build := newE2EFixture(t)
	seed := filepath.Join(t.TempDir(), "seed")
	build.env["FLEDGE_HOME"] = seed
	local := filepath.Join(t.TempDir(), "x")
	for p, body := range e2ePluginToml("x", "1.0.0") {
		os.MkdirAll(filepath.Dir(filepath.Join(local, p)), 0o755)
		os.WriteFile(filepath.Join(local, p), []byte(body), 0o755)
	}
	if code, out, errOut := build.fledge("plugins", "install", local, "--copy", "--yes"); code != 0 {
		t.Fatalf("building the seed: %d\n%s\n%s", code, out, errOut)
	}
	// Made read-only (for any user but root; the snapshot proves it for
	// root too).
	filepath.WalkDir(seed, func(p string, d fs.DirEntry, err error) error {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			os.Chmod(p, fi.Mode().Perm()&^0o222)
		}
		return nil
	})
	before := snapshot(t, seed)

	f := newE2EFixture(t)
	f.env[runner.EnvSeedDir] = filepath.Join(t.TempDir(), "no-such-seed") + string(filepath.ListSeparator) + seed
	if code, out, errOut := f.fledge("x"); code != 0 || !strings.Contains(out, "x 1.0.0") {
		t.Fatalf("run from the seed: exit %d\n%s\n%s", code, out, errOut)
	}
	var list listDoc
	if _, out, _ := f.fledge("plugins", "list", "--json"); json.Unmarshal([]byte(out), &list) != nil || len(list.Plugins) != 1 || list.Plugins[0].Seed != seed {
		t.Errorf("list --json does not show the seeded plugin with its seed: %s", out)
	}
	seededTools(t, f)
	var evs eventsDoc
	if _, out, _ := f.fledge("plugins", "audit", "--events", "--json"); json.Unmarshal([]byte(out), &evs) != nil || len(evs.Events) != 1 || evs.Events[0].Outcome != "ok" {
		t.Errorf("the event trail does not have the seeded run: %s", out)
	}
	if after := snapshot(t, seed); after != before {
		t.Fatalf("fledge wrote in the seed:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	bin := filepath.Join(seed, "plugins", "fledge-plugin-x", "bin", "x")
	os.Chmod(bin, 0o755)
	os.WriteFile(bin, []byte("#!/bin/sh\necho tampered\n"), 0o755)
	code, out, _ := f.fledge("plugins", "run", "x", "--json")
	if code == 0 || !strings.Contains(out, `"seed_changed"`) || strings.Contains(out, "tampered") {
		t.Errorf("a changed seeded tree: exit %d\n%s", code, out)
	}
	os.WriteFile(bin, []byte(e2ePluginToml("x", "1.0.0")["bin/x"]), 0o555)

	pol := filepath.Join(t.TempDir(), "policy.toml")
	os.WriteFile(pol, []byte(fmt.Sprintf("[sources]\ndeny = [%q]\n", local)), 0o644)
	f.env["FLEDGE_POLICY"] = pol
	code, out, _ = f.fledge("plugins", "run", "x", "--json")
	if code == 0 || !strings.Contains(out, `"policy_denied"`) {
		t.Errorf("a seeded plugin whose source the policy denies: exit %d\n%s", code, out)
	}
}

// A seed whose plugins.toml is there but does not parse is named in the
// error, not skipped as if it were absent (its commands would read as
// unknown, or run from a later seed); a seed directory that does not
// exist is skipped.
func TestSeedDirUnreadable(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "plugins.toml"), []byte("[plugins\nnot toml"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.env[runner.EnvSeedDir] = filepath.Join(t.TempDir(), "no-such-seed") + string(filepath.ListSeparator) + bad
	code, out, errOut := f.fledge("x")
	if code == 0 || !strings.Contains(errOut, "seed "+bad) || !strings.Contains(errOut, runner.EnvSeedDir) {
		t.Fatalf("a seed that does not parse: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

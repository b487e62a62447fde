//go:build unix

package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// verify re-hashes installed trees: what changed is named, per plugin, with
// exit 1; a live link is expected to change; a deleted tree is missing.
func TestVerifyNamesWhatChanged(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	files := hPlugin("fledge-plugin-vf", "1.0.0", "")
	files["lib/data.txt"] = "data\n"
	files["lib/gone.txt"] = "gone\n"
	e.repo("fledge-plugin-vf", files)
	e.ok("plugins", "install", "o/fledge-plugin-vf", "--json")
	e.local("lk", hPlugin("fledge-plugin-lk", "0.1.0", ""))
	e.ok("plugins", "install", "./lk", "--json")

	r := e.ok("plugins", "verify", "--json")
	doc := hJSON(t, r)
	if st := hStr(hByName(doc, "fledge-plugin-vf", "results"), "status"); st != "ok" {
		t.Fatalf("fresh install: status %q\n%v", st, r)
	}
	if st := hStr(hByName(doc, "fledge-plugin-lk", "results"), "status"); st != "linked" {
		t.Fatalf("live link: status %q\n%v", st, r)
	}

	// A live link changes by design: still exit 0.
	testutil.WriteTree(t, filepath.Join(e.work, "lk"), map[string]string{"new.txt": "x"})
	r = e.ok("plugins", "verify", "lk", "--json")
	if st := hStr(hJSON(t, r), "results", 0, "status"); st != "linked" {
		t.Fatalf("edited live link: status %q\n%v", st, r)
	}

	// Modify one file, add one, delete one.
	dir := filepath.Join(e.fh, "plugins", "fledge-plugin-vf")
	testutil.WriteTree(t, dir, map[string]string{"lib/data.txt": "tampered\n", "lib/added.txt": "new\n"})
	if err := os.Remove(filepath.Join(dir, "lib", "gone.txt")); err != nil {
		t.Fatal(err)
	}
	r = e.run("plugins", "verify", "vf", "--json")
	if r.code != 1 {
		t.Fatalf("tampered tree: want exit 1\n%v", r)
	}
	res := hGet(hJSON(t, r), "results", 0)
	for field, want := range map[string][]string{"modified": {"lib/data.txt"}, "added": {"lib/added.txt"}, "missing": {"lib/gone.txt"}} {
		if got := hStrings(res, field); !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v\n%v", field, got, want, r)
		}
	}
	if hStr(res, "status") != "modified" || hGet(res, "manifest_changed") != false {
		t.Errorf("want status modified and an unchanged manifest\n%v", r)
	}
	// The human form names the files too.
	r = e.run("plugins", "verify", "vf")
	if r.code != 1 || !bytes.Contains(r.out, []byte("lib/data.txt")) || !bytes.Contains(r.out, []byte("lib/added.txt")) || !bytes.Contains(r.out, []byte("lib/gone.txt")) {
		t.Errorf("human verify does not name the files\n%v", r)
	}

	// A changed plugin.toml is flagged as such.
	m := filepath.Join(dir, "plugin.toml")
	data, _ := os.ReadFile(m)
	if err := os.WriteFile(m, append(data, "\n[capabilities]\nexec = true\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	r = e.run("plugins", "verify", "vf", "--json")
	res = hGet(hJSON(t, r), "results", 0)
	if r.code != 1 || hGet(res, "manifest_changed") != true || !reflect.DeepEqual(hStrings(res, "modified"), []string{"lib/data.txt", "plugin.toml"}) {
		t.Errorf("changed manifest: want manifest_changed and plugin.toml modified, exit 1\n%v", r)
	}

	// The whole tree deleted: missing, exit 1.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	r = e.run("plugins", "verify", "--json")
	doc = hJSON(t, r)
	if st := hStr(hByName(doc, "fledge-plugin-vf", "results"), "status"); r.code != 1 || st != "missing" {
		t.Errorf("deleted tree: status %q exit %d, want missing, 1\n%v", st, r.code, r)
	}
	if hJSONString(hGet(doc, "summary", "failed")) != "1" {
		t.Errorf("summary.failed: %v", hGet(doc, "summary"))
	}
}

// syncFixture is machine A: two git plugins installed (one pinned to a
// tag, one with a capability and hooks), whose plugins.toml is the team's
// file.
type syncFixture struct {
	a        *hEnv
	file     string
	commits  map[string]string
	hashes   map[string]string
	pluginsA map[string]hEntry
}

func newSyncFixture(t *testing.T) *syncFixture {
	e := newHEnv(t)
	f := &syncFixture{a: e.withHome("fhA"), commits: map[string]string{}, hashes: map[string]string{}}
	f.commits["fledge-plugin-sa"] = e.repo("fledge-plugin-sa", hPlugin("fledge-plugin-sa", "1.0.0", ""))
	tagRepo := filepath.Join(e.gh, "o", "fledge-plugin-sa")
	r := openRepoT(t, tagRepo)
	if _, err := r.CreateTag("v1.0.0", mustHead(t, r), nil); err != nil {
		t.Fatal(err)
	}
	f.commits["fledge-plugin-sb"] = e.repo("fledge-plugin-sb", hPlugin("fledge-plugin-sb", "0.2.0",
		"\n[capabilities]\nstore = true\n\n[hooks]\nbuild = \"echo built > built.txt\"\npost_install = \"true\"\n"))
	f.a.ok("plugins", "install", "o/fledge-plugin-sa@v1.0.0", "--json")
	f.a.ok("plugins", "install", "o/fledge-plugin-sb", "--grant", "store,hooks", "--json")
	f.pluginsA = f.a.entries()
	for n, p := range f.pluginsA {
		if p.Commit != f.commits[n] {
			t.Fatalf("machine A recorded %s at %s, want %s", n, p.Commit, f.commits[n])
		}
		f.hashes[n] = p.SourceHash
	}
	f.file = filepath.Join(e.work, "team-plugins.toml")
	if err := os.WriteFile(f.file, f.a.pluginsToml(), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *syncFixture) machine(name string) *hEnv { return f.a.withHome(name) }

// sync reproduces machine A's plugins on machine B exactly.
func TestSyncReproducesAMachine(t *testing.T) {
	t.Parallel()
	f := newSyncFixture(t)
	b := f.machine("fhB")

	// Grants are a proposal: with no consent, nothing is installed.
	r := b.run("plugins", "sync", "--file", f.file, "--json")
	doc := hJSON(t, r)
	if r.code != 1 || hStr(hByName(doc, "fledge-plugin-sb", "results"), "error", "code") != "approval_required" {
		t.Fatalf("sync without consent: want approval_required for sb\n%v", r)
	}
	// sa requests nothing, so it needs no consent; sb is not installed.
	if n := b.names(); !reflect.DeepEqual(n, []string{"fledge-plugin-sa"}) {
		t.Fatalf("sync without consent installed %v", n)
	}
	b.absent("fledge-plugin-sb", "sb")
	// --yes does not approve hooks of an unverified source either.
	r = b.run("plugins", "sync", "--file", f.file, "--yes", "--json")
	if hStr(hByName(hJSON(t, r), "fledge-plugin-sb", "results"), "error", "code") != "approval_required" {
		t.Fatalf("sync --yes: want approval_required for sb's hooks\n%v", r)
	}
	if _, ok := b.entries()["fledge-plugin-sb"]; ok {
		t.Fatal("sync --yes installed sb with unapproved hooks")
	}

	r = b.ok("plugins", "sync", "--file", f.file, "--grant", "store,hooks", "--json")
	got := b.entries()
	for n, want := range f.pluginsA {
		p, ok := got[n]
		if !ok {
			t.Fatalf("%s not installed on B\n%v", n, r)
		}
		if p.Commit != want.Commit || p.SourceHash != want.SourceHash || p.SourceHash == "" {
			t.Errorf("%s on B: commit %s hash %s, want %s %s", n, p.Commit, p.SourceHash, want.Commit, want.SourceHash)
		}
		if !reflect.DeepEqual(p.Capabilities, want.Capabilities) || !reflect.DeepEqual(p.Hooks, want.Hooks) {
			t.Errorf("%s on B: grants %v hooks %v, want %v %v", n, p.Capabilities, p.Hooks, want.Capabilities, want.Hooks)
		}
		b.verified(n, p.Commands...)
	}
	if _, err := os.Stat(filepath.Join(b.fh, "plugins", "fledge-plugin-sb", "built.txt")); err != nil {
		t.Errorf("sb's approved build did not run on B: %v", err)
	}

	// A second run changes nothing.
	before := b.pluginsToml()
	r = b.ok("plugins", "sync", "--file", f.file, "--grant", "store,hooks", "--json")
	for _, res := range hGet(hJSON(t, r), "results").([]any) {
		if hStr(res, "status") != "in_sync" {
			t.Errorf("second sync: %s is %s\n%v", hStr(res, "name"), hStr(res, "status"), r)
		}
	}
	if !bytes.Equal(before, b.pluginsToml()) {
		t.Error("an in-sync run rewrote plugins.toml")
	}

	// Extras: kept without --prune, removed with it.
	b.local("extra", hPlugin("fledge-plugin-extra", "0.1.0", ""))
	b.ok("plugins", "install", "./extra", "--copy", "--json")
	b.ok("plugins", "sync", "--file", f.file, "--grant", "store,hooks", "--json")
	b.verified("fledge-plugin-extra", "extra")
	r = b.ok("plugins", "sync", "--file", f.file, "--grant", "store,hooks", "--prune", "--json")
	if st := hStr(hByName(hJSON(t, r), "fledge-plugin-extra", "results"), "status"); st != "removed" {
		t.Errorf("prune: extra is %q\n%v", st, r)
	}
	b.absent("fledge-plugin-extra", "extra")
	if n := b.names(); !reflect.DeepEqual(n, []string{"fledge-plugin-sa", "fledge-plugin-sb"}) {
		t.Errorf("after prune B has %v", n)
	}
	b.noLeftovers()
}

// Anything that cannot be reproduced exactly is an error naming the
// plugin, and installs nothing of it.
func TestSyncRefusesWhatItCannotReproduce(t *testing.T) {
	t.Parallel()
	f := newSyncFixture(t)
	team := string(f.a.pluginsToml())

	write := func(name, text string) string {
		p := filepath.Join(f.a.work, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("tampered source_hash", func(t *testing.T) {
		h := f.hashes["fledge-plugin-sa"]
		bad := "fh1:" + strings.Repeat("0", len(h)-4)
		file := write("tampered.toml", strings.Replace(team, h, bad, 1))
		c := f.machine("fhTamper")
		r := c.run("plugins", "sync", "--file", file, "--grant", "store,hooks", "--json")
		res := hByName(hJSON(t, r), "fledge-plugin-sa", "results")
		if r.code != 1 || hStr(res, "error", "code") != "not_reproducible" || !strings.Contains(hStr(res, "error", "message"), "fledge-plugin-sa") {
			t.Fatalf("want not_reproducible naming sa\n%v", r)
		}
		c.absent("fledge-plugin-sa", "sa")
		// The untampered entry still syncs.
		c.verified("fledge-plugin-sb", "sb")
		c.noLeftovers()
	})

	t.Run("local entry", func(t *testing.T) {
		m := f.machine("fhLocalSrc")
		m.local("loc", hPlugin("fledge-plugin-loc", "0.1.0", ""))
		m.ok("plugins", "install", "./loc", "--json")
		file := write("local.toml", string(m.pluginsToml()))
		c := f.machine("fhLocal")
		r := c.run("plugins", "sync", "--file", file, "--json")
		res := hByName(hJSON(t, r), "fledge-plugin-loc", "results")
		if r.code != 1 || hStr(res, "error", "code") != "not_reproducible" || !strings.Contains(hStr(res, "error", "message"), "fledge-plugin-loc") {
			t.Fatalf("want not_reproducible naming loc\n%v", r)
		}
		c.absent("fledge-plugin-loc", "loc")
	})

	t.Run("commit gone from the remote", func(t *testing.T) {
		// A history rewrite: the repository is recreated, so the recorded
		// commit no longer exists anywhere on the remote.
		e := f.a
		repo := filepath.Join(e.gh, "o", "fledge-plugin-gone")
		e.repo("fledge-plugin-gone", hPlugin("fledge-plugin-gone", "1.0.0", ""))
		src := f.machine("fhGoneSrc")
		src.ok("plugins", "install", "o/fledge-plugin-gone", "--json")
		file := write("gone.toml", string(src.pluginsToml()))
		old := src.entries()["fledge-plugin-gone"].Commit
		if err := os.RemoveAll(repo); err != nil {
			t.Fatal(err)
		}
		if now := e.repo("fledge-plugin-gone", hPlugin("fledge-plugin-gone", "1.0.1", "")); now == old {
			t.Fatal("fixture: the rewritten history has the same commit")
		}
		c := f.machine("fhGone")
		r := c.run("plugins", "sync", "--file", file, "--json")
		res := hByName(hJSON(t, r), "fledge-plugin-gone", "results")
		if r.code != 1 || hStr(res, "status") != "failed" || hStr(res, "commit") != old {
			t.Fatalf("want failed for the vanished commit\n%v", r)
		}
		c.absent("fledge-plugin-gone", "gone")
		c.noLeftovers()
	})
}

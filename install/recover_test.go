package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/treehash"
)

// recordTree records name in plugins.toml with the tree hash of dir (or
// with no hash, as the Rust fledge wrote entries, when dir is "").
func recordTree(t *testing.T, e *env, name, dir string, commands ...string) {
	t.Helper()
	p := lockfile.Plugin{Name: name, Source: "/src/" + name, Version: "1.0.0", Installed: "2026-01-01T00:00:00Z",
		Commands: commands, Kind: lockfile.KindLocalCopy}
	for _, c := range commands { // as install records them
		p.CommandDetails = append(p.CommandDetails, manifest.Command{Name: c, Binary: "bin/" + c})
	}
	if dir != "" {
		tr, err := treehash.Hash(dir, treehash.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p.TreeHash = tr.Hash
	}
	if err := e.store.Update(func(f *lockfile.File) error { f.Put(p); return nil }); err != nil {
		t.Fatal(err)
	}
}

func recTree(t *testing.T, dir, version string) {
	t.Helper()
	testutil.WriteTree(t, dir, map[string]string{"VERSION": version, "plugin.toml": "[plugin]\nname = \"x\"\nversion = \"" + version + "\"\n"})
}

func recVersion(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "VERSION"))
	if err != nil {
		return ""
	}
	return string(b)
}

func recExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func recEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	return n
}

func recRecover(t *testing.T, e *env) {
	t.Helper()
	if err := recoverLocked(e.paths, e.store); err != nil {
		t.Fatal(err)
	}
}

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestRecoverStaging(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	staging := e.paths.StagingDir()
	dead := deadPID(t)
	if processAlive(dead) {
		t.Skip("the dead process's pid was reused at once")
	}
	dirs := map[string]bool{ // name → survives
		"install-" + strconv.Itoa(dead) + "-123":      false,
		"sync-" + strconv.Itoa(dead) + "-9":           false,
		"update-" + strconv.Itoa(dead) + "-x":         false,
		"install-" + strconv.Itoa(os.Getpid()) + "-1": true, // ours: in use
		"install-1-5":       true, // pid 1 runs
		"install-notapid-5": true, // not fledge's
		"somebody-elses":    true,
	}
	for d := range dirs {
		recTree(t, filepath.Join(staging, d, "tree"), "1")
	}
	recRecover(t, e)
	for d, survives := range dirs {
		if recExists(filepath.Join(staging, d)) != survives {
			t.Errorf("staging %s: survives=%v, want %v", d, !survives, survives)
		}
	}
}

// Recovery that deletes every leftover leaves no empty staging area.
func TestRecoverStagingLeavesNoEmptyArea(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dead := deadPID(t)
	if processAlive(dead) {
		t.Skip("the dead process's pid was reused at once")
	}
	recTree(t, filepath.Join(e.paths.StagingDir(), "install-"+strconv.Itoa(dead)+"-1", "tree"), "1")
	recRecover(t, e)
	if recExists(e.paths.StagingDir()) {
		t.Errorf("recovery left %s behind", e.paths.StagingDir())
	}
}

// A swap or remove that stopped with the old tree in the trash.
func TestRecoverTrash(t *testing.T) {
	t.Parallel()
	const name = "fledge-plugin-a-b" // dashes in the name: the owner is everything before the last one
	cases := []struct {
		what      string
		recordOld bool // plugins.toml records the old tree
		recordNew bool // plugins.toml records the new tree
		placed    bool // a new tree is at PluginDir
		want      string
	}{
		{what: "stopped before the new tree landed", recordOld: true, want: "old"},
		{what: "new tree placed, never recorded", recordOld: true, placed: true, want: "old"},
		{what: "new tree recorded, old not yet deleted", recordNew: true, placed: true, want: "new"},
		{what: "removed and unrecorded, tree not yet deleted", want: ""},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			old := filepath.Join(t.TempDir(), "old")
			recTree(t, old, "old")
			final := e.paths.PluginDir(name)
			if c.placed {
				recTree(t, final, "new")
			}
			switch {
			case c.recordOld:
				recordTree(t, e, name, old)
			case c.recordNew:
				recordTree(t, e, name, final)
			}
			aside := filepath.Join(e.paths.TrashDir(), name+"-0123456789ab")
			if err := os.MkdirAll(e.paths.TrashDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(old, aside); err != nil {
				t.Fatal(err)
			}
			// Another plugin's tree must not be mistaken for this one's.
			other := e.paths.PluginDir("fledge-plugin-a")
			recTree(t, other, "other")

			recRecover(t, e)
			if got := recVersion(t, final); got != c.want {
				t.Errorf("PluginDir holds %q, want %q", got, c.want)
			}
			if n := recEntries(t, e.paths.TrashDir()); len(n) != 0 {
				t.Errorf("trash still holds %v", n)
			}
			if recVersion(t, other) != "other" {
				t.Error("another plugin's tree was touched")
			}
			// Recovery is idempotent.
			recRecover(t, e)
			if got := recVersion(t, final); got != c.want {
				t.Errorf("second recovery: PluginDir holds %q, want %q", got, c.want)
			}
		})
	}
}

// A trashed live link is removed as a link: the source behind it survives.
func TestRecoverTrashedLinkNeverFollowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := filepath.Join(t.TempDir(), "src")
	recTree(t, src, "src")
	if err := os.MkdirAll(e.paths.TrashDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, filepath.Join(e.paths.TrashDir(), "fledge-plugin-l-00ff")); err != nil {
		t.Fatal(err)
	}
	recRecover(t, e)
	if recVersion(t, src) != "src" {
		t.Fatal("recovery deleted the source behind a live link")
	}
	if n := recEntries(t, e.paths.TrashDir()); len(n) != 0 {
		t.Errorf("trash still holds %v", n)
	}
}

// The commit marker tells a fresh tree fledge placed but never recorded
// from one it did not place.
func TestRecoverMarker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mark := func(name string) {
		m := commitMarker(e.paths, name)
		if err := os.MkdirAll(filepath.Dir(m), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Placed and marked, never recorded: removed.
	recTree(t, e.paths.PluginDir("fledge-plugin-fresh"), "fresh")
	mark("fledge-plugin-fresh")
	// A live link placed and marked, never recorded: only the link goes.
	src := filepath.Join(t.TempDir(), "src")
	recTree(t, src, "src")
	if err := os.MkdirAll(e.paths.PluginsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, e.paths.PluginDir("fledge-plugin-link")); err != nil {
		t.Fatal(err)
	}
	mark("fledge-plugin-link")
	// Marked and recorded (the crash came after the record): kept.
	recTree(t, e.paths.PluginDir("fledge-plugin-done"), "done")
	recordTree(t, e, "fledge-plugin-done", e.paths.PluginDir("fledge-plugin-done"))
	mark("fledge-plugin-done")
	// Not marked, not recorded: not fledge's doing, never touched.
	recTree(t, e.paths.PluginDir("fledge-plugin-mine"), "mine")

	recRecover(t, e)
	if recExists(e.paths.PluginDir("fledge-plugin-fresh")) {
		t.Error("an unrecorded fresh tree survived")
	}
	if recExists(e.paths.PluginDir("fledge-plugin-link")) {
		t.Error("an unrecorded fresh link survived")
	}
	if recVersion(t, src) != "src" {
		t.Error("recovery deleted the source behind a live link")
	}
	if recVersion(t, e.paths.PluginDir("fledge-plugin-done")) != "done" {
		t.Error("a recorded tree was removed")
	}
	if recVersion(t, e.paths.PluginDir("fledge-plugin-mine")) != "mine" {
		t.Error("a directory fledge did not place was removed")
	}
	for _, n := range []string{"fledge-plugin-fresh", "fledge-plugin-link", "fledge-plugin-done"} {
		if recExists(commitMarker(e.paths, n)) {
			t.Errorf("the marker of %s survived", n)
		}
	}
}

// A corrupt plugins.toml stops recovery before it touches any tree.
func TestRecoverCorruptStateTouchesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	recTree(t, e.paths.PluginDir("fledge-plugin-p"), "p")
	aside := filepath.Join(e.paths.TrashDir(), "fledge-plugin-p-00aa")
	recTree(t, aside, "old")
	if err := os.WriteFile(e.paths.PluginsFile(), []byte("[[plugins]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := recoverLocked(e.paths, e.store); err == nil {
		t.Fatal("recovery over a corrupt plugins.toml succeeded")
	}
	if recVersion(t, e.paths.PluginDir("fledge-plugin-p")) != "p" || recVersion(t, aside) != "old" {
		t.Error("recovery moved trees although plugins.toml could not be read")
	}
}

// A remove that stopped after moving the tree aside and unlinking its
// commands, before the record: the tree comes back, and so do its links.
func TestRecoverRemoveRestoresLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const name = "fledge-plugin-r"
	final := e.paths.PluginDir(name)
	recTree(t, final, "1")
	testutil.WriteTree(t, final, map[string]string{"bin/r": "#!/bin/sh\n"})
	recordTree(t, e, name, final, "r")
	// The state remove leaves between moveOldAside/unlinkOwned and Update.
	if err := os.MkdirAll(e.paths.TrashDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(final, filepath.Join(e.paths.TrashDir(), name+"-00bb")); err != nil {
		t.Fatal(err)
	}
	recRecover(t, e)
	if recVersion(t, final) != "1" {
		t.Fatal("the tree did not come back")
	}
	if _, err := os.Stat(e.paths.CommandLink("r")); err != nil {
		t.Errorf("the recorded command r has no link after recovery: %v", err)
	}
}

// A fresh install over a directory no record owns (moveOldAside put it in
// the trash), killed after placing the new tree and before the record:
// the never-recorded new tree does not survive as if installed.
func TestRecoverUnrecordedSwap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const name = "fledge-plugin-u"
	if err := os.MkdirAll(e.paths.TrashDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	recTree(t, filepath.Join(e.paths.TrashDir(), name+"-00cc"), "leftover")
	recTree(t, e.paths.PluginDir(name), "new")
	m := commitMarker(e.paths, name)
	if err := os.MkdirAll(filepath.Dir(m), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	recRecover(t, e)
	if v := recVersion(t, e.paths.PluginDir(name)); v == "new" {
		t.Errorf("the never-recorded new tree is still in place (the directory it replaced was %s)",
			map[bool]string{true: "deleted", false: "kept"}[recEntries(t, e.paths.TrashDir()) == nil])
	}
}

// Interrupted names what dead runs left in the trash, and nothing that a
// running fledge is in the middle of.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if n := Interrupted(e.paths); n != nil {
		t.Fatalf("a fresh home: %v", n)
	}
	if recExists(e.paths.TrashDir()) || recExists(e.paths.Root()) {
		t.Fatal("Interrupted created directories")
	}
	dead := deadPID(t)
	if processAlive(dead) {
		t.Skip("the dead process's pid was reused at once")
	}
	d := strconv.Itoa(dead)
	for _, entry := range []string{
		"fledge-plugin-dead-" + d + ".0a1b2c",                     // a tree a dead run moved aside
		"fledge-plugin-fresh-" + d + markerSuffix,                 // a dead run's commit marker
		"fledge-plugin-old-0123456789ab",                          // an older fledge's entry: no pid
		"fledge-plugin-live-1.0a1b2c",                             // pid 1 runs
		"fledge-plugin-ours-" + strconv.Itoa(os.Getpid()) + ".ff", // this process
		"nodash",
	} {
		recTree(t, filepath.Join(e.paths.TrashDir(), entry), "x")
	}
	got := Interrupted(e.paths)
	want := []string{"fledge-plugin-dead", "fledge-plugin-fresh", "fledge-plugin-old"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Interrupted = %v, want %v", got, want)
	}
}

// A remove killed after moving the tree aside, before the record: the
// first reader that looks puts the tree back, without any other command.
func TestRecoverInterruptedRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const name = "fledge-plugin-r"
	final := e.paths.PluginDir(name)
	recTree(t, final, "1")
	recordTree(t, e, name, final)
	dead := deadPID(t)
	if processAlive(dead) {
		t.Skip("the dead process's pid was reused at once")
	}
	if err := os.MkdirAll(e.paths.TrashDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(final, filepath.Join(e.paths.TrashDir(), name+"-"+strconv.Itoa(dead)+".00bb")); err != nil {
		t.Fatal(err)
	}
	got, err := RecoverInterrupted(e.paths, e.store)
	if err != nil || len(got) != 1 || got[0] != name {
		t.Fatalf("RecoverInterrupted = %v, %v", got, err)
	}
	if recVersion(t, final) != "1" {
		t.Error("the tree did not come back")
	}
	if recExists(e.paths.TrashDir()) {
		t.Errorf("the trash survives: %v", recEntries(t, e.paths.TrashDir()))
	}
	// Nothing left: nothing done, no lock taken.
	if got, err := RecoverInterrupted(e.paths, e.store); got != nil || err != nil {
		t.Errorf("second call: %v, %v", got, err)
	}
}

// A swap whose process still runs is its business: a reader neither
// touches it nor waits for the lock it holds (a post_install hook may run
// fledge while its own install holds the lock).
func TestRecoverInterruptedLeavesLiveSwapsAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const name = "fledge-plugin-l"
	final := e.paths.PluginDir(name)
	recTree(t, final, "new")
	aside := filepath.Join(e.paths.TrashDir(), name+"-1.00cc") // pid 1 always runs
	recTree(t, aside, "old")
	if err := os.MkdirAll(e.paths.Root(), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockedfile.MutexAt(e.paths.TreeLock()).Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	done := make(chan error, 1)
	go func() {
		got, err := RecoverInterrupted(e.paths, e.store)
		if len(got) != 0 {
			err = fmt.Errorf("recovered %v", got)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // only so a regression cannot hang the run
		t.Fatal("RecoverInterrupted waited for the lock of a swap in progress")
	}
	if recVersion(t, final) != "new" || recVersion(t, aside) != "old" {
		t.Error("a swap in progress was touched")
	}
}

func TestTrashNames(t *testing.T) {
	t.Parallel()
	for entry, want := range map[string]struct {
		name string
		pid  int
		ok   bool
	}{
		trashName("fledge-plugin-a-b"):                   {"fledge-plugin-a-b", os.Getpid(), true},
		filepath.Base(commitMarker(home.Paths{}, "x-y")): {"x-y", os.Getpid(), true},
		"fledge-plugin-a-0123456789ab":                   {"fledge-plugin-a", 0, true},
		"-12.ab":                                         {"", 0, false},
	} {
		name, pid, ok := trashOwner(entry)
		if name != want.name || pid != want.pid || ok != want.ok {
			t.Errorf("trashOwner(%q) = %q, %d, %v; want %+v", entry, name, pid, ok, want)
		}
	}
}

// BenchmarkInterrupted is what every command pays to look for a crash's
// leftovers when there are none (the trash does not exist), beside one
// stat of plugins.toml as a yardstick.
func BenchmarkInterrupted(b *testing.B) {
	p, err := home.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p.PluginsFile(), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(p.PluginsDir(), 0o755); err != nil {
		b.Fatal(err)
	}
	b.Run("interrupted", func(b *testing.B) {
		for b.Loop() {
			if Interrupted(p) != nil {
				b.Fatal("leftovers")
			}
		}
	})
	b.Run("stat-plugins.toml", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.Stat(p.PluginsFile()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

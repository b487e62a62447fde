package derived

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// stampsSupported is whether this platform has stamps (stamp_*.go).
var stampsSupported = runtime.GOOS == "linux" || runtime.GOOS == "darwin"

// later moves the clock stamps are judged against an hour ahead, so that
// files just written count as settled (not parallel: it swaps the clock).
func later(t *testing.T) {
	t.Helper()
	t.Cleanup(SettleForTest())
}

// nextTick waits until a change made now is stamped later than path's last
// change: the kernel's change times come from a clock that advances in
// ticks, and two writes in one tick are the racy case StampMargin covers.
func nextTick(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, was, _ := statIDs(fi)
	probe := filepath.Join(t.TempDir(), "probe")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		pi, err := os.Stat(probe)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, c, _ := statIDs(pi); c > was {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the file system's change time did not advance in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestStampRefusesRecentChanges(t *testing.T) {
	if !stampsSupported {
		t.Skip("no change times here: stamps are never used")
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := Stamp(path); ok {
		t.Fatal("a file changed just now has a stamp: a second change in the same tick would go unseen")
	}
	later(t)
	if _, ok := Stamp(path); !ok {
		t.Fatal("a settled file has no stamp")
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := mkfifo(fifo); err == nil {
		if _, ok := Stamp(fifo); ok {
			t.Fatal("a FIFO has a stamp")
		}
	}
}

// Every change to a file's contents or a directory's entries changes its
// stamp, even one that restores the size and the modification time.
func TestStampSeesEveryChange(t *testing.T) {
	if !stampsSupported {
		t.Skip("no change times here: stamps are never used")
	}
	later(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	stamps := map[Digest]string{}
	see := func(what, p string) {
		t.Helper()
		s, ok := Stamp(p)
		if !ok {
			t.Fatalf("%s: no stamp", what)
		}
		if other, seen := stamps[s]; seen {
			t.Fatalf("%s has the stamp of %s", what, other)
		}
		stamps[s] = what
	}
	see("the file", path)
	see("the directory", dir)
	made := filepath.Join(dir, "made")
	see("nothing", made)
	if err := os.Mkdir(made, 0o755); err != nil {
		t.Fatal(err)
	}
	see("a directory made where nothing was", made)
	steps := []struct {
		what   string
		path   string
		change func() error
	}{
		{"rewritten, size and time kept", path, func() error {
			if err := os.WriteFile(path, []byte("after!"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(path, fi.ModTime(), fi.ModTime())
		}},
		{"replaced by a rename, size and time kept", path, func() error {
			other := filepath.Join(dir, "g")
			if err := os.WriteFile(other, []byte("again!"), 0o644); err != nil {
				return err
			}
			if err := os.Chtimes(other, fi.ModTime(), fi.ModTime()); err != nil {
				return err
			}
			return os.Rename(other, path)
		}},
		{"chmod", path, func() error { return os.Chmod(path, 0o600) }},
		{"a directory with an entry added", dir, func() error { return os.WriteFile(filepath.Join(dir, "new"), nil, 0o644) }},
		{"a directory with an entry renamed", dir, func() error { return os.Rename(filepath.Join(dir, "new"), filepath.Join(dir, "newer")) }},
		{"a directory with an entry removed", dir, func() error { return os.Remove(filepath.Join(dir, "newer")) }},
	}
	for _, s := range steps {
		nextTick(t, s.path)
		if err := s.change(); err != nil {
			t.Fatal(err)
		}
		see(s.what, s.path)
	}
}

func TestDigestFileMemo(t *testing.T) {
	dir := t.TempDir()
	path, memo := filepath.Join(dir, "input"), filepath.Join(dir, "cache", "input.sum")
	if err := os.WriteFile(path, []byte("contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := Sum([]byte("contents"))
	if d, ok := DigestFileMemo(memo, path, 100); !ok || d != want {
		t.Fatalf("digest %x, %v; want %x", d, ok, want)
	}
	if _, err := os.Stat(memo); !os.IsNotExist(err) {
		t.Fatalf("the digest of a file changed just now was remembered (%v)", err)
	}
	if !stampsSupported {
		return
	}
	later(t)
	if d, ok := DigestFileMemo(memo, path, 100); !ok || d != want {
		t.Fatalf("digest %x, %v; want %x", d, ok, want)
	}
	st, _ := Stamp(path)
	if got, ok := New(memo, memoKind+", at most 100 bytes", st).Read(); !ok || Digest(got) != want {
		t.Fatalf("the settled file's digest was not remembered: %x, %v", got, ok)
	}
	// What is remembered is what is answered (fledge never stores a wrong
	// digest: this shows which path answered).
	marked := Sum([]byte("marked"))
	New(memo, memoKind+", at most 100 bytes", st).Put(marked[:])
	if d, _ := DigestFileMemo(memo, path, 100); d != marked {
		t.Fatal("the remembered digest was not used")
	}
	// A change, size and modification time kept, is digested again.
	fi, _ := os.Stat(path)
	nextTick(t, path)
	if err := os.WriteFile(path, []byte("CONTENTS"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if d, ok := DigestFileMemo(memo, path, 100); !ok || d != Sum([]byte("CONTENTS")) {
		t.Fatalf("the changed file answered %x, %v", d, ok)
	}
	// The limit still applies to a remembered file.
	if _, ok := DigestFileMemo(memo, path, 5); ok {
		t.Fatal("a file over the limit was digested")
	}
}

// Only file systems whose stat the local kernel answers afresh give stamps:
// procfs (standing in here for NFS, SMB and FUSE, which this test cannot
// mount) gives none, for a file or for nothing at all.
func TestStampOnlyOnLocalFileSystems(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs is Linux's")
	}
	later(t)
	dir := t.TempDir()
	if _, ok := Stamp(filepath.Join(dir, "missing", "deeper")); !ok {
		t.Skipf("%s is on a file system stamps do not trust: nothing to compare with", dir)
	}
	for _, p := range []string{"/proc/self/status", "/proc/self/no-such-file"} {
		if _, ok := Stamp(p); ok {
			t.Errorf("%s has a stamp", p)
		}
	}
}

//go:build unix

package confine

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// shortTempDir is a directory for the test, removed after it, whose
// tmp is short enough to be a plugin's TMPDIR (MaxTempLen): t.TempDir's
// names hold the test's.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ct")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if len(dir)+len("/tmp") > MaxTempLen {
		t.Fatalf("the temporary directory %s is too long for these tests: set TMPDIR to a shorter one", os.TempDir())
	}
	return dir
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

// A plugin's runs take its TMPDIR in turn: each finds it empty, leaves it
// empty, and what a link in it points to stays.
func TestTakeTempReusedEmpty(t *testing.T) {
	base := shortTempDir(t)
	dir := filepath.Join(base, "tmp")
	outside := filepath.Join(base, "keep.txt")
	mustWrite(t, outside, "the user's\n")
	for run := range 3 {
		tmp, err := TakeTemp(dir, "", "fledge-plugin-x")
		if err != nil {
			t.Fatal(err)
		}
		if tmp.Path != dir {
			t.Fatalf("run %d: TMPDIR %s, want %s", run, tmp.Path, dir)
		}
		if got := entries(t, dir); len(got) != 0 {
			t.Fatalf("run %d found %v left by the run before", run, got)
		}
		mustWrite(t, filepath.Join(dir, "a", "b", "c.txt"), "x")
		mustWrite(t, filepath.Join(dir, "f"), "x")
		if err := os.Symlink(base, filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		tmp.Release()
		if got := entries(t, dir); len(got) != 0 {
			t.Fatalf("run %d left %v", run, got)
		}
		if b, err := os.ReadFile(outside); err != nil || string(b) != "the user's\n" {
			t.Fatalf("what a link in TMPDIR points to was touched: %q, %v", b, err)
		}
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("TMPDIR: %v, %v; want a directory only its owner reaches", fi, err)
	}
}

// While one run holds the directory, another gets one of its own, which
// its Release removes; and what a crashed run left is gone for the next.
func TestTakeTempBusyAndLeftovers(t *testing.T) {
	dir := filepath.Join(shortTempDir(t), "tmp")
	first, err := TakeTemp(dir, "", "fledge-plugin-x")
	if err != nil {
		t.Fatal(err)
	}
	second, err := TakeTemp(dir, "", "fledge-plugin-x")
	if err != nil {
		t.Fatal(err)
	}
	if second.Path == dir || filepath.Dir(second.Path) != filepath.Clean(os.TempDir()) {
		t.Fatalf("a second run at once got %s, want a directory of its own in %s", second.Path, os.TempDir())
	}
	mustWrite(t, filepath.Join(second.Path, "f"), "x")
	second.Release()
	if _, err := os.Lstat(second.Path); !os.IsNotExist(err) {
		t.Errorf("the second run's own directory stays: %v", err)
	}
	first.Release()

	// A crash: a file left, no lock held.
	mustWrite(t, filepath.Join(dir, "left"), "x")
	third, err := TakeTemp(dir, "", "fledge-plugin-x")
	if err != nil {
		t.Fatal(err)
	}
	defer third.Release()
	if third.Path != dir {
		t.Fatalf("TMPDIR %s after the others ended, want %s", third.Path, dir)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("the next run finds %v a crashed run left", got)
	}
}

// A link where the directory should be is not followed: the run gets a
// directory of its own and the link's target is untouched.
func TestTakeTempNoLink(t *testing.T) {
	base := shortTempDir(t)
	target := filepath.Join(base, "elsewhere")
	mustWrite(t, filepath.Join(target, "keep.txt"), "x")
	dir := filepath.Join(base, "tmp")
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
	tmp, err := TakeTemp(dir, "", "fledge-plugin-x")
	if err != nil {
		t.Fatal(err)
	}
	tmp.Release()
	if tmp.Path == dir {
		t.Errorf("TMPDIR is the link %s", dir)
	}
	if got := entries(t, target); len(got) != 1 {
		t.Errorf("the link's target holds %v, want keep.txt", got)
	}
}

// A plugin's own directory too long to bind a UNIX socket below (a long
// FLEDGE_HOME, a 100-byte plugin name) is not its TMPDIR: the run gets a
// short directory of its own, where one binds.
func TestTakeTempLeavesRoomForSockets(t *testing.T) {
	short := shortTempDir(t)
	t.Setenv("TMPDIR", short)
	name := "fledge-plugin-" + strings.Repeat("n", 86)
	home := filepath.Join(short, "home-of-a-user-with-a-rather-long-path", ".config", "fledge")
	dir := filepath.Join(home, "plugins", ".data", name, "tmp")
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil { // as the runner has it
		t.Fatal(err)
	}
	tmp, err := TakeTemp(dir, "", name)
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Release()
	if tmp.Path == dir || filepath.Dir(tmp.Path) != short || len(tmp.Path) > MaxTempLen {
		t.Fatalf("TMPDIR %s (%d bytes), want a directory of its own in %s, at most %d bytes", tmp.Path, len(tmp.Path), short, MaxTempLen)
	}
	// Python's multiprocessing names its sockets so.
	sock := filepath.Join(tmp.Path, "pymp-k3j2h1g0", "listener-a1b2c3d4")
	if err := os.Mkdir(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("a socket in TMPDIR: %v", err)
	}
	l.Close()
	tmp.Release()
	if _, err := os.Lstat(tmp.Path); !os.IsNotExist(err) {
		t.Errorf("the run's own directory stays: %v", err)
	}
}

// A plugin's own directory too long for sockets below it is stood in for
// by its short one in FLEDGE_HOME, taken in turn as the own one is: the
// same directory run after run, emptied, where a socket binds; while a
// run holds it, another gets a directory of its own.
func TestTakeTempShortStandsIn(t *testing.T) {
	base := shortTempDir(t)
	t.Setenv("TMPDIR", base)
	name := "fledge-plugin-" + strings.Repeat("n", 86)
	home := filepath.Join(base, "fh")
	dir := filepath.Join(home, "plugins", ".data", name, "tmp")
	short := filepath.Join(home, "t", "0123456789ab")
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil { // as the runner has it
		t.Fatal(err)
	}
	first, err := TakeTemp(dir, short, name)
	if err != nil {
		t.Fatal(err)
	}
	if first.Path != short {
		t.Fatalf("TMPDIR %s, want the short stand-in %s", first.Path, short)
	}
	sock := filepath.Join(first.Path, "pymp-k3j2h1g0", "listener-a1b2c3d4")
	if err := os.Mkdir(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("a socket in the stand-in: %v", err)
	}
	l.Close()
	second, err := TakeTemp(dir, short, name)
	if err != nil {
		t.Fatal(err)
	}
	if second.Path == short || len(second.Path) > MaxTempLen {
		t.Errorf("a second run while the first holds %s got %s, want one of its own, at most %d bytes", short, second.Path, MaxTempLen)
	}
	second.Release()
	first.Release()
	if got := entries(t, short); len(got) != 0 {
		t.Errorf("after the run the stand-in holds %v, want it empty", got)
	}
	third, err := TakeTemp(dir, short, name)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Release()
	if third.Path != short {
		t.Errorf("the next run got %s, want the stand-in %s again", third.Path, short)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the too-long directory was made: %v", err)
	}
}

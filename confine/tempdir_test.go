//go:build unix

package confine

import (
	"os"
	"path/filepath"
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
	base := t.TempDir()
	dir := filepath.Join(base, "tmp")
	outside := filepath.Join(base, "keep.txt")
	mustWrite(t, outside, "the user's\n")
	for run := range 3 {
		tmp, err := TakeTemp(dir, "fledge-plugin-x")
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
	dir := filepath.Join(t.TempDir(), "tmp")
	first, err := TakeTemp(dir, "fledge-plugin-x")
	if err != nil {
		t.Fatal(err)
	}
	second, err := TakeTemp(dir, "fledge-plugin-x")
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
	third, err := TakeTemp(dir, "fledge-plugin-x")
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
	base := t.TempDir()
	target := filepath.Join(base, "elsewhere")
	mustWrite(t, filepath.Join(target, "keep.txt"), "x")
	dir := filepath.Join(base, "tmp")
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
	tmp, err := TakeTemp(dir, "fledge-plugin-x")
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

package testutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A file is built once for its inputs, and again for other inputs; a
// failed build leaves nothing behind.
func TestCachedFile(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	builds := 0
	build := func(content string) func(string) error {
		return func(path string) error {
			builds++
			return os.WriteFile(path, []byte(content), 0o644)
		}
	}
	a1, err := CachedFile("thing", t.TempDir(), [][]byte{[]byte("v1"), []byte("src")}, build("A"))
	if err != nil {
		t.Fatal(err)
	}
	a2, err := CachedFile("thing", t.TempDir(), [][]byte{[]byte("v1"), []byte("src")}, build("not again"))
	if err != nil || a2 != a1 || builds != 1 {
		t.Fatalf("second call: %s, %v, %d builds; want %s from the first build", a2, err, builds, a1)
	}
	// The inputs are kept apart: "v1"+"src" is not "v1s"+"rc".
	b, err := CachedFile("thing", t.TempDir(), [][]byte{[]byte("v1s"), []byte("rc")}, build("B"))
	if err != nil || b == a1 || builds != 2 {
		t.Fatalf("other inputs: %s, %v, %d builds", b, err, builds)
	}
	if data, _ := os.ReadFile(a1); string(data) != "A" {
		t.Errorf("%s holds %q", a1, data)
	}
	_, err = CachedFile("thing", t.TempDir(), [][]byte{[]byte("broken")}, func(path string) error {
		os.WriteFile(path, []byte("half"), 0o644)
		return errors.New("compiler failed")
	})
	if err == nil {
		t.Fatal("a failed build was cached")
	}
	dir, _ := CacheDir("thing")
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("the cache holds %d files, want the 2 built", len(ents))
	}
}

// FLEDGE_TEST_CACHE=off builds every time, into the temporary directory.
func TestCachedFileOff(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("FLEDGE_TEST_CACHE", "off")
	tmp := t.TempDir()
	builds := 0
	for range 2 {
		p, err := CachedFile("thing", tmp, [][]byte{[]byte("x")}, func(path string) error {
			builds++
			return os.WriteFile(path, nil, 0o644)
		})
		if err != nil || filepath.Dir(p) != tmp {
			t.Fatalf("%s, %v: want a file in %s", p, err, tmp)
		}
	}
	if builds != 2 {
		t.Errorf("%d builds, want 2", builds)
	}
}

// Files unchanged for longer than cacheKeep go; the others stay.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	old, fresh := filepath.Join(dir, "a", "old"), filepath.Join(dir, "a", "fresh")
	for _, p := range []string{old, fresh} {
		WriteFile(t, p, []byte("x"), 0o644)
	}
	past := time.Now().Add(-cacheKeep - time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	trim(dir, time.Now().Add(-cacheKeep))
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old file is still there (%v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("the fresh file went: %v", err)
	}
}

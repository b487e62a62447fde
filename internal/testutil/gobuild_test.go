package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BuildGo's program runs, and each call writes its own copy: changing one
// changes neither the cache nor the next build.
func TestBuildGo(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	if err := BuildGo(first, "./testdata/greet"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first, []byte("#!/bin/sh\necho changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := BuildGo(second, "./testdata/greet"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(second, "a", "b").Output()
	if err != nil || string(out) != "hello from 2 args\n" {
		t.Errorf("the built program said %q (%v)", out, err)
	}
}

// A package that does not build is an error that shows the compiler's.
func TestBuildGoError(t *testing.T) {
	if err := BuildGo(filepath.Join(t.TempDir(), "x"), "./testdata/nosuch"); err == nil {
		t.Fatal("no error for a package that does not exist")
	}
}

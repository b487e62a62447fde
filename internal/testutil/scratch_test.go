package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A TMPDIR the caller set is kept.
func TestScratchKeepsAnExplicitTMPDIR(t *testing.T) {
	want := t.TempDir()
	t.Setenv("TMPDIR", want)
	done := Scratch()
	if got := os.Getenv("TMPDIR"); got != want {
		t.Errorf("TMPDIR = %q, want %q kept", got, want)
	}
	done()
	if got := os.Getenv("TMPDIR"); got != want {
		t.Errorf("after: TMPDIR = %q, want %q kept", got, want)
	}
}

// Otherwise, on a machine whose temporary directory is on a disk and
// that has a roomy tmpfs, the scratch files go to a directory of their own
// there, where programs run, and which the cleanup removes.
func TestScratchInMemory(t *testing.T) {
	t.Setenv("TMPDIR", "")
	os.Unsetenv("TMPDIR")
	if !roomyMemoryFS("/dev/shm") || memoryFS(os.TempDir()) {
		t.Skipf("%s is already in memory, or there is no roomy tmpfs at /dev/shm", os.TempDir())
	}
	done := Scratch()
	dir := os.TempDir()
	if !strings.HasPrefix(dir, "/dev/shm/fledge-test-") || !memoryFS(dir) {
		t.Fatalf("TMPDIR = %q, want a directory of its own on /dev/shm", dir)
	}
	script := filepath.Join(dir, "hello")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(script).Output(); err != nil || string(out) != "hi\n" {
		t.Errorf("a program in the scratch directory: %q, %v", out, err)
	}
	done()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the scratch directory is still there after cleanup (%v)", err)
	}
	if v, ok := os.LookupEnv("TMPDIR"); ok {
		t.Errorf("TMPDIR = %q after cleanup, want unset", v)
	}
}

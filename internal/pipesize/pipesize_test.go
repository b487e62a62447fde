package pipesize

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestGrow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux pipes grow")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before := Size(w)
	if before == 0 || before >= Max {
		t.Skipf("a new pipe holds %d bytes: nothing to grow", before)
	}
	Grow(w, before/2)
	if got := Size(w); got != before {
		t.Fatalf("asked for less than it holds, the pipe went from %d to %d bytes", before, got)
	}
	Grow(w, 10*Max)
	if got := Size(w); got != Max && got != before {
		t.Fatalf("the pipe holds %d bytes, want %d (or %d past the user's limit)", got, Max, before)
	}
	if Size(r) != Size(w) {
		t.Error("the two ends of one pipe report different sizes")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	Grow(f, Max) // not a pipe: nothing happens, nothing fails
	if Size(f) != 0 {
		t.Error("a regular file has a pipe size")
	}
}

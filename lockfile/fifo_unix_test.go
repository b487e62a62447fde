//go:build unix

package lockfile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO as plugins.toml is refused with a clear error instead of blocking
// every command on an open that waits for a writer; the command index
// does not block on it either.
func TestFIFORefused(t *testing.T) {
	s := newStore(t)
	if err := syscall.Mkfifo(s.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("Load: %v", err)
	}
	idx := filepath.Join(filepath.Dir(s.Path()), "cache", "commands.idx")
	if _, _, err := s.CommandOwner("x", idx, ""); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("CommandOwner: %v", err)
	}
}

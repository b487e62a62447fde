//go:build unix

package treehash

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestHashRefusesSpecialFiles(t *testing.T) {
	skipWindows(t)
	root := sample(t)
	fifo := filepath.Join(root, "lib", "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Hash(root, Options{})
	if !errors.Is(err, ErrUnsafeTree) || !strings.Contains(err.Error(), "lib/pipe") {
		t.Errorf("fifo: %v, want ErrUnsafeTree naming lib/pipe", err)
	}
	// Skipped special files are not looked at.
	if _, err := Hash(root, Options{Skip: func(rel string) bool { return rel == "lib/pipe" }}); err != nil {
		t.Errorf("skipped fifo still refused: %v", err)
	}
}

// A file the walk saw as regular but that is a named pipe by the time it
// is opened (swapped in between) is refused at once, not read forever.
func TestHashFileRefusesSwappedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := hashFile(fifo, "lib/pipe")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnsafeTree) || !strings.Contains(err.Error(), "lib/pipe is a named pipe") {
			t.Errorf("hashFile(fifo): %v, want ErrUnsafeTree naming it", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("hashFile blocked opening a named pipe")
	}
}

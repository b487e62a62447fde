//go:build unix

package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/treehash"
)

// A file the walk saw as regular but that is a named pipe by the time it
// is opened (swapped in between) is refused at once, not read forever.
func TestCopyFileRefusesSwappedPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- copyFile(fifo, filepath.Join(dir, "copy"), 0o644) }()
	select {
	case err := <-done:
		if !errors.Is(err, treehash.ErrUnsafeTree) || !strings.Contains(err.Error(), "is a named pipe") {
			t.Errorf("copyFile(fifo): %v, want ErrUnsafeTree naming it", err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "copy")); err == nil {
			t.Error("a copy was created")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("copyFile blocked opening a named pipe")
	}
}

//go:build unix

package treehash

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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

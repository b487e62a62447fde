package testutil

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// Programs written with WriteFile run at once, however many other
// goroutines start processes meanwhile: none of those children can hold
// one open for writing (ETXTBSY). Each goroutine writes its own programs
// and runs them, as parallel tests do.
func TestWriteFileThenRun(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				p := filepath.Join(dir, fmt.Sprintf("g%d", g), fmt.Sprintf("p%d", i))
				WriteFile(t, p, []byte("#!/bin/sh\nexit 0\n"), 0o755)
				if err := exec.Command(p).Run(); err != nil {
					select {
					case errs <- fmt.Errorf("%s: %w", p, err):
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		if errors.Is(err, syscall.ETXTBSY) {
			t.Fatalf("a program just written was busy: %v", err)
		}
		t.Fatal(err)
	default:
	}
}

//go:build unix

package wasmhost

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// A named pipe in a module's place is refused as not a regular file, at
// once: opened for reading it would wait for a writer for ever.
func TestReadModuleRefusesAPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin.wasm")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadModule(path)
		done <- err
	}()
	select {
	case err := <-done:
		var nr *bounded.NotRegularError
		if !errors.As(err, &nr) {
			t.Fatalf("ReadModule of a named pipe: %v, want it refused as not a regular file", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ReadModule of a named pipe still waits after 30 s: it opened the pipe for reading")
	}
}

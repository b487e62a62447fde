package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// WriteFile writes data to path with mode, making its directory first,
// while no process can be forked from this one. A child forked while the
// file is open for writing holds it open until the child execs, and
// running the file meanwhile fails with ETXTBSY, "text file busy"
// (go.dev/issue/22315): parallel tests that write programs and start
// processes hit it. Holding syscall.ForkLock, which os/exec takes to
// fork, closes that window.
func WriteFile(tb testing.TB, path string, data []byte, mode os.FileMode) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, data, mode)
	if err == nil {
		// WriteFile's mode is masked by the umask, and leaves an existing
		// file's mode alone.
		err = os.Chmod(path, mode)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		tb.Fatal(err)
	}
}

// WriteTree writes files (slash-separated paths, relative to dir) with
// WriteFile: those under bin/ executable, the others not.
func WriteTree(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, body := range files {
		mode := os.FileMode(0o644)
		if strings.HasPrefix(name, "bin/") {
			mode = 0o755
		}
		WriteFile(tb, filepath.Join(dir, filepath.FromSlash(name)), []byte(body), mode)
	}
}

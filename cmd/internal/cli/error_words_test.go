package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"testing"
)

// An interruption reads "interrupted", never Go's "context canceled", and
// keeps its code; a file error loses the system call's name but not the
// path or the reason.
func TestErrorWords(t *testing.T) {
	t.Parallel()
	je := toJSONError(fmt.Errorf("fetch o/r: clone file:///x: %w", context.Canceled))
	if je.Message != "interrupted" || je.Code != CodeInterrupted {
		t.Errorf("interrupted: %+v", je)
	}
	pe := &fs.PathError{Op: "lstat", Path: "/home/me/plug", Err: fs.ErrNotExist}
	je = toJSONError(fmt.Errorf("read plugin: %w", pe))
	if want := "read plugin: /home/me/plug: file does not exist"; je.Message != want {
		t.Errorf("got %q, want %q", je.Message, want)
	}
	op := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 443}, Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	je = toJSONError(fmt.Errorf("%w: %s: %w", errors.New("registry unavailable"), "https://x/index.json", op))
	if want := "registry unavailable: https://x/index.json: cannot connect to 10.0.0.1:443: connection refused"; je.Message != want {
		t.Errorf("got %q, want %q", je.Message, want)
	}
}

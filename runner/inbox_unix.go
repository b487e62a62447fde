//go:build unix

package runner

import (
	"errors"
	"os"
	"syscall"
)

// tryWrite writes what the pipe takes right now, without waiting. It
// returns an error only when the pipe is broken.
func tryWrite(f *os.File, b []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, nil
	}
	var n int
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		n, werr = syscall.Write(int(fd), b)
		return true
	})
	switch {
	case err != nil:
		return 0, err
	case errors.Is(werr, syscall.EAGAIN), errors.Is(werr, syscall.EINTR):
		return 0, nil
	case werr != nil:
		return 0, werr
	case n < 0:
		return 0, nil
	}
	return n, nil
}

//go:build unix

package runner

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// readNow reads what the pipe f holds without waiting for more: 0 and no
// error when it holds nothing, io.EOF when every writer has closed it. f's
// read deadline must be clear.
func readNow(f *os.File, p []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = unix.Read(int(fd), p)
			if !errors.Is(rerr, unix.EINTR) {
				return true // never wait: an empty pipe is the end here
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errors.Is(rerr, unix.EAGAIN):
		return 0, nil
	case rerr != nil:
		return 0, rerr
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

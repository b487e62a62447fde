package pipesize

import (
	"os"

	"golang.org/x/sys/unix"
)

// Grow asks for the pipe behind f to hold want bytes (at most Max), when f
// is a pipe that holds fewer; anything else is left as it is.
func Grow(f *os.File, want int) {
	want = min(want, Max)
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && n < want {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, want)
		}
	})
}

// Size is the capacity of the pipe behind f, or 0 when f is no pipe.
func Size(f *os.File) int {
	n := 0
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			if s, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil {
				n = s
			}
		})
	}
	return n
}

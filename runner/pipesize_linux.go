package runner

import (
	"os"

	"golang.org/x/sys/unix"
)

// streamPipe is the capacity asked for the pipe a protocol plugin writes
// its messages to: 1 MiB, Linux's default pipe-max-size, in place of
// 64 KiB. A plugin that streams output then fills the pipe 16 times less
// often, and each wakeup of fledge reads that much more (bench/all.sh's
// stream rows).
const streamPipe = 1 << 20

// growPipe asks the kernel for a larger pipe behind f. It is a hint: past
// the user's limit (fs.pipe-max-size, pipe-user-pages-soft) the pipe
// keeps its size and nothing else changes.
func growPipe(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, streamPipe)
		})
	}
}

// pipeHolds is how many bytes the pipe behind f holds unread.
func pipeHolds(f *os.File) int {
	n := 0
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ)
		})
	}
	return n
}

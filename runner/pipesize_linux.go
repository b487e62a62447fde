package runner

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/corvidlabs/fledge-go/internal/pipesize"
)

// streamPipe is the capacity asked for the pipes a protocol plugin's
// output goes through: the one it writes its messages to, and fledge's
// stdout when that is a pipe too. 1 MiB, Linux's default pipe-max-size,
// in place of 64 KiB: a plugin that streams output fills its pipe 16 times
// less often, each wakeup of fledge reads that much more, and fledge,
// relaying the texts, runs ahead of the program reading them instead of
// waking for each 8 KiB it reads (bench/all.sh's stream rows).
const streamPipe = pipesize.Max

// growPipe asks the kernel for a larger pipe behind f, when f is a pipe
// smaller than streamPipe (pipesize.Grow; a larger one is left as it is).
// It is a hint: past the user's limit (fs.pipe-max-size,
// pipe-user-pages-soft) the pipe keeps its size and nothing else changes.
func growPipe(f *os.File) { pipesize.Grow(f, streamPipe) }

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

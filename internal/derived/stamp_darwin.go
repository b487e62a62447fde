package derived

import (
	"os"
	"syscall"
)

// statIDs returns fi's device, inode and change time (Unix nanoseconds).
func statIDs(fi os.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), st.Ctimespec.Nano(), true
}

package derived

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// statIDs returns fi's device, inode and change time (Unix nanoseconds).
func statIDs(fi os.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), st.Ctimespec.Nano(), true
}

// keepsChangeTimes reports whether path (or its nearest existing
// ancestor) is on APFS or HFS+, whose change
// times the local kernel keeps, as Stamp needs. Others get no stamps and
// are read every time: a network file system (NFS, SMB, AFP) answers stat
// from a cache that can hide a change made elsewhere, and FAT keeps no
// change time of its own.
func keepsChangeTimes(path string) bool {
	var fs unix.Statfs_t
	if err := statfsNearest(path, func(p string) error { return unix.Statfs(p, &fs) }); err != nil {
		return false
	}
	name := unix.ByteSliceToString(fs.Fstypename[:])
	return name == "apfs" || name == "hfs"
}

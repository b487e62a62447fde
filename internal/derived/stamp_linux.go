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
	return uint64(st.Dev), uint64(st.Ino), st.Ctim.Nano(), true
}

// localFS are the file systems whose change times the local kernel keeps,
// as Stamp needs. Others get no stamps and are read every time: a network
// file system (NFS, SMB, 9p, FUSE's sshfs) answers stat from a cache that
// can hide a change made elsewhere for up to a minute, and FAT and NTFS
// keep no change time of their own.
var localFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC:      true, // ext2, ext3 and ext4
	unix.XFS_SUPER_MAGIC:       true,
	unix.BTRFS_SUPER_MAGIC:     true,
	unix.TMPFS_MAGIC:           true,
	unix.RAMFS_MAGIC:           true,
	unix.OVERLAYFS_SUPER_MAGIC: true,
	unix.F2FS_SUPER_MAGIC:      true,
	unix.BCACHEFS_SUPER_MAGIC:  true,
	unix.SQUASHFS_MAGIC:        true,
	unix.EROFS_SUPER_MAGIC_V1:  true,
	0x2fc12fc1:                 true, // ZFS
}

// keepsChangeTimes reports whether the file system holding path (or that
// would hold it: its nearest existing ancestor's) is one of localFS.
func keepsChangeTimes(path string) bool {
	var fs unix.Statfs_t
	if err := statfsNearest(path, func(p string) error { return unix.Statfs(p, &fs) }); err != nil {
		return false
	}
	return localFS[int64(fs.Type)]
}

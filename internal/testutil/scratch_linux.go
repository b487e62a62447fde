package testutil

import "golang.org/x/sys/unix"

// memoryFS reports whether dir is on a tmpfs.
func memoryFS(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.TMPFS_MAGIC
}

// roomyMemoryFS reports whether dir is a tmpfs that can take the tests'
// scratch files: writable, executable (they run plugins from it) and with
// minScratchFree to spare.
func roomyMemoryFS(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil || st.Type != unix.TMPFS_MAGIC {
		return false
	}
	if st.Flags&(unix.ST_RDONLY|unix.ST_NOEXEC) != 0 {
		return false
	}
	return st.Bavail*uint64(st.Bsize) >= minScratchFree && unix.Access(dir, unix.W_OK|unix.X_OK) == nil
}

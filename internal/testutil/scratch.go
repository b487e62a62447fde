package testutil

import (
	"os"
)

// minScratchFree is the free space a memory filesystem needs to take the
// tests' scratch files: the largest of them are tens of MiB.
const minScratchFree = 1 << 30

// Scratch gives the package's temporary files (t.TempDir, os.MkdirTemp
// with "", and those of the processes the tests start) a directory of
// their own on a memory filesystem, when TMPDIR is unset, the default
// temporary directory is on a disk, and /dev/shm is a tmpfs that is
// writable, executable and has room. Call it from TestMain before m.Run,
// and the function it returns after (it removes the directory).
//
// Why: these tests make and delete tens of thousands of small files
// (plugin trees, staging directories, git fixtures, FLEDGE_HOMEs). On
// ext4 without a journal, as on this project's 2-core CI machines, each
// new inode is searched for past every inode freed in the last minute or
// more (ext4's recently_deleted check), so creation slows as deletions
// pile up: in perf, 42% of the cli tests' CPU samples were that search.
// What the tests assert does not depend on the filesystem. TMPDIR set to
// anything (TMPDIR=/tmp) keeps the disk.
func Scratch() (cleanup func()) {
	if os.Getenv("TMPDIR") != "" || !roomyMemoryFS("/dev/shm") || memoryFS(os.TempDir()) {
		return func() {}
	}
	dir, err := os.MkdirTemp("/dev/shm", "fledge-test-")
	if err != nil {
		return func() {}
	}
	os.Setenv("TMPDIR", dir)
	return func() {
		os.Unsetenv("TMPDIR")
		os.RemoveAll(dir)
	}
}

package derived

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// StampMargin is how old a file's last change must be for its stamp to
// count: a change is stamped with a clock that lags the real one by up to a
// scheduler tick and rounded down to the file system's granularity (2 s on
// FAT), so a file changed less than this long ago could change again without
// its stamp changing. cmd/go trusts file modification times by the same rule
// (its modTimeCutoff) and git by its racily clean entries.
const StampMargin = 3 * time.Second

// now is the clock stamps are judged against (tests move it).
var now = time.Now

// Stamp returns a digest of what the kernel reports about the file or
// directory at path (followed through symlinks): its device, inode, type,
// size, and modification and change times. It is an exact stand-in for the
// contents (a directory's contents being its entries' names) under these
// conditions, and false when one does not hold:
//   - The platform reports a change time (Linux, macOS) and the file lives
//     on a local file system that keeps one (ext4, XFS, Btrfs, tmpfs,
//     overlayfs, ZFS, APFS, … : see keepsChangeTimes; not NFS, SMB or FUSE,
//     whose stat answers from a cache, nor FAT). The kernel sets it to the
//     current time on every change to the contents, the mode or the name,
//     and no system call sets it otherwise, so neither a rewrite that
//     restores the modification time nor a rename of another file into
//     place leaves it as it was.
//   - The last change is older than StampMargin. A later change is then
//     stamped with a later time: its change time differs from the one
//     recorded, unless the wall clock is set back by more than StampMargin
//     and the change lands on the same instant.
//   - It is a regular file or a directory (not a FIFO, which could not be
//     read anyway, nor a device), or nothing: a path where nothing exists
//     has a stamp of its own, which whatever is made there changes.
//
// What it does not see: a write through a shared writable mapping made while
// the page was already dirty (the kernel stamps the first write after a
// clean page only); no program maps fledge's state files that way.
//
// A derived file keyed on the stamps of its inputs is therefore exact, as one
// keyed on their contents is, and costs a stat per input instead of a read
// and a hash: plugins.toml's digest (DigestFileMemo) and the fledge-<name>
// programs of each PATH directory (runner.Externals) are remembered so.
func Stamp(path string) (Digest, bool) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		// Absence is as exact, where the directory that would hold it
		// answers stat afresh: whatever is made there has a stamp of its own.
		return Sum([]byte(path + "\x00absent")), keepsChangeTimes(path)
	}
	if err != nil || !(fi.Mode().IsRegular() || fi.IsDir()) {
		return Digest{}, false
	}
	dev, ino, ctime, ok := statIDs(fi)
	if !ok || !keepsChangeTimes(path) {
		return Digest{}, false
	}
	mtime := fi.ModTime().UnixNano()
	cutoff := now().Add(-StampMargin).UnixNano()
	if ctime >= cutoff || mtime >= cutoff {
		return Digest{}, false
	}
	b := make([]byte, 0, len(path)+1+6*8)
	b = append(b, path...)
	b = append(b, 0)
	for _, n := range []uint64{dev, ino, uint64(fi.Mode()), uint64(fi.Size()), uint64(mtime), uint64(ctime)} {
		b = binary.BigEndian.AppendUint64(b, n)
	}
	return Sum(b), true
}

// memoKind names DigestFileMemo's derived files.
const memoKind = "digest of a file by its stamp"

// DigestFileMemo is DigestFile(path, max), remembered in the derived file
// at memo under path's stamp: while the file stays as it was (see Stamp),
// its digest is read back rather than computed again from its contents.
// A file changed within StampMargin, or whose stamp changed while it was
// read, is digested every time and not remembered.
func DigestFileMemo(memo, path string, max int64) (Digest, bool) {
	st, stable := Stamp(path)
	// The limit is part of the key: a file remembered under a larger one
	// may be over this one.
	kind := memoKind + ", at most " + strconv.FormatInt(max, 10) + " bytes"
	if stable {
		if body, ok := New(memo, kind, st).Read(); ok && len(body) == len(Digest{}) {
			return Digest(body), true
		}
	}
	d, ok := DigestFile(path, max)
	if ok && stable {
		if after, still := Stamp(path); still && after == st {
			New(memo, kind, st).Put(d[:])
		}
	}
	return d, ok
}

// SettleForTest makes every file and directory count as settled for Stamp
// (the clock it judges by moves an hour ahead) until restore is called: for
// the tests of packages that keep derived files under stamps, which cannot
// age a file's change time. Not for parallel tests: the clock is shared.
func SettleForTest() (restore func()) {
	saved := now
	now = func() time.Time { return saved().Add(time.Hour) }
	return func() { now = saved }
}

// statfsNearest calls statfs on path or, while it does not exist, on its
// nearest existing ancestor.
func statfsNearest(path string, statfs func(string) error) error {
	for {
		err := statfs(path)
		parent := filepath.Dir(path)
		if !errors.Is(err, fs.ErrNotExist) || parent == path {
			return err
		}
		path = parent
	}
}

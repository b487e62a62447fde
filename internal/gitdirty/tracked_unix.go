//go:build unix

package gitdirty

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"golang.org/x/sys/unix"
)

// tracked reports whether any of entries differs from the worktree: what
// porcelain's second column shows.
//
// Each path is looked up from its directory's descriptor, opened one
// component at a time without following symlinks. That is git's rule (a
// tracked path behind a symlink counts as deleted), keeps every read inside
// the worktree, and costs half of an lstat on the whole path. Entries come
// sorted, so the open directories are a stack as deep as the path.
func (c *checker) tracked(entries []indexEntry) (bool, error) {
	rootFd, err := unix.Open(c.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, &os.PathError{Op: "open", Path: c.root, Err: err}
	}
	d := dirStack{fds: []int{rootFd}}
	defer d.close()
	for i := range entries {
		if i%64 == 0 && c.found.Load() {
			return false, nil
		}
		e := &entries[i]
		if e.skipWorktree || e.assumeValid {
			continue // sparse checkout or assume-unchanged: git does not look
		}
		dir, name := splitDir(e.name)
		fd, ok := d.cd(dir)
		if !ok {
			return true, nil // removed, or behind a symlink git will not follow
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return true, nil // deleted (or unreadable, which git reports too)
		}
		fs := statOf(&st)
		if e.mode == filemode.Submodule {
			if fs.kind != kindDir {
				return true, nil
			}
			changed, err := c.submoduleChanged(e, filepath.Join(c.root, filepath.FromSlash(e.name)))
			if changed || err != nil {
				return changed, err
			}
			continue
		}
		if c.changed(e, fs, func() (plumbing.Hash, error) { return hashAt(fd, name, &st) }) {
			return true, nil
		}
	}
	return false, nil
}

func statOf(st *unix.Stat_t) fileStat {
	fs := fileStat{
		exec:  st.Mode&0o100 != 0,
		size:  st.Size,
		mtime: statTime{uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec)},
		ctime: statTime{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec)},
		ino:   uint64(st.Ino),
		uid:   st.Uid,
		gid:   st.Gid,
		full:  true,
	}
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		fs.kind = kindRegular
	case unix.S_IFLNK:
		fs.kind = kindSymlink
	case unix.S_IFDIR:
		fs.kind = kindDir
	}
	return fs
}

// hashAt hashes the file or symlink name in the directory fd, which lstat
// described as st. A file is opened without following a symlink or
// blocking on a FIFO swapped in since, and must still be st's file.
func hashAt(fd int, name string, st *unix.Stat_t) (plumbing.Hash, error) {
	if uint32(st.Mode)&unix.S_IFMT == unix.S_IFLNK {
		buf := make([]byte, st.Size+1)
		n, err := unix.Readlinkat(fd, name, buf)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if int64(n) != st.Size {
			return plumbing.ZeroHash, os.ErrInvalid // changed since the lstat
		}
		return symlinkHash(string(buf[:n])), nil
	}
	ffd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	f := os.NewFile(uintptr(ffd), name)
	defer f.Close()
	var now unix.Stat_t
	if err := unix.Fstat(ffd, &now); err != nil {
		return plumbing.ZeroHash, err
	}
	if now.Ino != st.Ino || now.Dev != st.Dev || uint32(now.Mode)&unix.S_IFMT != unix.S_IFREG {
		return plumbing.ZeroHash, os.ErrInvalid
	}
	return hashReader(f, st.Size)
}

// dirStack holds descriptors for the root and the directories down to the
// current one.
type dirStack struct {
	cur  string   // the current directory, slash-separated
	path []string // its components
	fds  []int    // fds[0] is the root, fds[i] is path[:i]
}

// cd makes dir (slash-separated, relative) current and returns its
// descriptor; ok is false when a component is missing, not a directory or
// a symlink.
func (d *dirStack) cd(dir string) (int, bool) {
	if dir == d.cur && len(d.fds) == len(d.path)+1 {
		return d.fds[len(d.fds)-1], true
	}
	var parts []string
	if dir != "" {
		parts = strings.Split(dir, "/")
	}
	keep := 0
	for keep < len(parts) && keep < len(d.path) && parts[keep] == d.path[keep] {
		keep++
	}
	for len(d.path) > keep {
		unix.Close(d.fds[len(d.fds)-1])
		d.fds = d.fds[:len(d.fds)-1]
		d.path = d.path[:len(d.path)-1]
	}
	for _, p := range parts[keep:] {
		fd, err := unix.Openat(d.fds[len(d.fds)-1], p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, false
		}
		d.fds = append(d.fds, fd)
		d.path = append(d.path, p)
	}
	d.cur = dir
	return d.fds[len(d.fds)-1], true
}

func (d *dirStack) close() {
	for _, fd := range d.fds {
		unix.Close(fd)
	}
}

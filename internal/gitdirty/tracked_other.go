//go:build !unix

package gitdirty

import (
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// tracked reports whether any of entries differs from the worktree: what
// porcelain's second column shows. (The Unix version looks paths up from
// directory descriptors; this one checks each directory once with Lstat.)
func (c *checker) tracked(entries []indexEntry) (bool, error) {
	dirs := map[string]bool{} // directory → it is a real directory, not a symlink
	for i := range entries {
		if i%64 == 0 && c.found.Load() {
			return false, nil
		}
		e := &entries[i]
		if e.skipWorktree || e.assumeValid {
			continue // sparse checkout or assume-unchanged: git does not look
		}
		if dir, _ := splitDir(e.name); dir != "" && !c.realDir(dirs, dir) {
			return true, nil // removed, or behind a symlink git will not follow
		}
		path := filepath.Join(c.root, filepath.FromSlash(e.name))
		fi, err := os.Lstat(path)
		if err != nil {
			return true, nil // deleted (or unreadable, which git reports too)
		}
		st := fileStat{exec: fi.Mode().Perm()&0o100 != 0, size: fi.Size()}
		t := fi.ModTime()
		st.mtime = statTime{uint32(t.Unix()), uint32(t.Nanosecond())}
		switch m := fi.Mode(); {
		case m.IsRegular():
			st.kind = kindRegular
		case m&os.ModeSymlink != 0:
			st.kind = kindSymlink
		case m.IsDir():
			st.kind = kindDir
		}
		if e.mode == filemode.Submodule {
			if st.kind != kindDir {
				return true, nil
			}
			changed, err := c.submoduleChanged(e, path)
			if changed || err != nil {
				return changed, err
			}
			continue
		}
		if c.changed(e, st, func() (plumbing.Hash, error) { return hashPath(path, fi) }) {
			return true, nil
		}
	}
	return false, nil
}

// realDir reports whether dir (relative, slash-separated) and each of its
// parents is a directory and not a symlink, remembering answers in seen.
func (c *checker) realDir(seen map[string]bool, dir string) bool {
	if ok, done := seen[dir]; done {
		return ok
	}
	ok := true
	if parent, _ := splitDir(dir); parent != "" {
		ok = c.realDir(seen, parent)
	}
	if ok {
		fi, err := os.Lstat(filepath.Join(c.root, filepath.FromSlash(dir)))
		ok = err == nil && fi.IsDir()
	}
	seen[dir] = ok
	return ok
}

// hashPath hashes a file (its content) or a symlink (its target) that
// Lstat described as fi.
func hashPath(path string, fi os.FileInfo) (plumbing.Hash, error) {
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return symlinkHash(target), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil || !now.Mode().IsRegular() || !os.SameFile(now, fi) {
		return plumbing.ZeroHash, os.ErrInvalid
	}
	return hashReader(f, fi.Size())
}

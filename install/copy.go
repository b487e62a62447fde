package install

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/internal/bounded"
	"github.com/corvidlabs/fledge-go/treehash"
)

// copyTree snapshots a local plugin directory into dst (which must not
// exist): regular files with their modes, symlinks as symlinks, no .git.
// Special files are refused.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == ".git" {
			// SkipDir on a file (a worktree's or submodule's .git file)
			// would skip the rest of the directory.
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch t := d.Type(); {
		case t.IsDir():
			return os.MkdirAll(target, 0o755)
		case t&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case t.IsRegular():
			return copyFile(p, target, info.Mode().Perm())
		default:
			return fmt.Errorf("%w: %s is a special file (%s)", treehash.ErrUnsafeTree, rel, t)
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	// The walk saw a regular file, but the name may have been swapped
	// since: open without blocking, and copy only a regular file.
	in, err := bounded.OpenNoLink(src)
	var nr *bounded.NotRegularError
	if errors.As(err, &nr) {
		return fmt.Errorf("%w: %s is %s, not a regular file", treehash.ErrUnsafeTree, src, cmp.Or(nr.Kind, "a special file"))
	}
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

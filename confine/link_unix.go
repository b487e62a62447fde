//go:build unix

package confine

import (
	"os"
	"syscall"
)

// isLink reports whether p is a symbolic link (os.Lstat without the
// FileInfo it allocates: a drawing asks it of every path component).
func isLink(p string) (bool, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(p, &st)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return false, &os.PathError{Op: "lstat", Path: p, Err: err}
		}
	}
	return st.Mode&syscall.S_IFMT == syscall.S_IFLNK, nil
}

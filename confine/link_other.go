//go:build !unix

package confine

import "os"

// isLink reports whether p is a symbolic link.
func isLink(p string) (bool, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return false, err
	}
	return fi.Mode()&os.ModeSymlink != 0, nil
}

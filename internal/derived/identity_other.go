//go:build !linux

package derived

import (
	"os"
	"strconv"
)

// executableIdentity names the running executable by path, size and
// modification time.
func executableIdentity() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return IdentityOf(exe)
}

// IdentityOf names the executable at path as executableIdentity names the
// running one ("" when it cannot be read).
func IdentityOf(exe string) string {
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

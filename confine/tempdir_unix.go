//go:build unix

package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// takeHeld opens dir (not through a link), making it when missing, locks
// it for this run and empties it; nil when it cannot (another run holds
// it, or it is not a directory).
func takeHeld(dir string) *Temp {
	open := func() (int, error) {
		return unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	}
	fd, err := open()
	if errors.Is(err, unix.ENOENT) {
		made := os.Mkdir(dir, 0o700)
		if errors.Is(made, fs.ErrNotExist) { // its parent too: FLEDGE_HOME/t, the first time
			_ = os.Mkdir(filepath.Dir(dir), 0o700)
			made = os.Mkdir(dir, 0o700)
		}
		if made != nil && !errors.Is(made, fs.ErrExist) {
			return nil
		}
		fd, err = open()
	}
	if err != nil {
		return nil
	}
	// Locks are per open file: two runs in one process exclude each
	// other as two processes do, and the lock goes with the descriptor
	// (close-on-exec: the plugin never holds it).
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		_ = unix.Close(fd)
		return nil
	}
	t := &Temp{Path: dir, held: os.NewFile(uintptr(fd), dir)}
	if t.empty() != nil {
		_ = t.held.Close()
		return nil
	}
	return t
}

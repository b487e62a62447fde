package agenthosts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/renameio"
)

// Read returns a host file's contents; nil when it does not exist.
func Read(file string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Write replaces file with data: written beside it and renamed over it,
// so a host reading it meanwhile sees the old file or the new one. A
// symbolic link (a dotfiles manager's) is followed and the file it names
// replaced; the file keeps its mode, and a new one is private to the user
// (hosts keep tokens in theirs).
func Write(file string, data []byte) error {
	target := file
	if t, err := filepath.EvalSymlinks(file); err == nil {
		target = t
	}
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := renameio.WriteFile(target, data); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return os.Chmod(target, mode)
}

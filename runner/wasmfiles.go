package runner

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// adoptRustFiles makes dst, the directory a wasm plugin sees at /plugin.
// The first time, when legacy (the Rust fledge's data/ inside the plugin's
// tree) is a directory, its files are copied in, so what a plugin wrote
// under the Rust fledge reads the same here, as the store's state.json is
// taken over. The original stays as it was. Only directories and regular
// files are copied: a symlink (which could point at any file of the
// user's) or a device is left behind. The copy is built beside dst and
// renamed into place, so a crash or a concurrent run never leaves half.
func adoptRustFiles(legacy, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return nil // ours already (the usual case)
	}
	if fi, err := os.Lstat(legacy); err != nil || !fi.IsDir() {
		return os.MkdirAll(dst, 0o700)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".adopt-files-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after a successful rename, there is nothing there
	root, err := os.OpenRoot(legacy)
	if err != nil {
		return err
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(tmp, filepath.FromSlash(p))
		switch {
		case p == ".":
			return nil
		case d.IsDir():
			return os.Mkdir(to, 0o700)
		case d.Type().IsRegular():
			return copyRegular(root, p, to)
		}
		return nil // a symlink, device or pipe stays behind
	})
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, serr := os.Lstat(dst); serr == nil {
			return nil // a concurrent run took it over first
		}
		return err
	}
	return nil
}

func copyRegular(root *os.Root, name, to string) (err error) {
	in, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil // replaced since the walk saw it: left behind
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = io.Copy(out, in)
	return err
}

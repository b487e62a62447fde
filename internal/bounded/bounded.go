package bounded

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadAll reads f to its end or to limit bytes, whichever comes first: it
// is io.ReadAll(io.LimitReader(f, limit)), but sized from f's length when
// f is a regular file, so reading a large file costs one allocation and no
// copying instead of a doubling buffer's. Callers that must refuse a file
// over max pass max+1 and compare the length.
func ReadAll(f *os.File, limit int64) ([]byte, error) {
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		// One byte more than the size, so the read that sees EOF
		// needs no room of its own.
		size = fi.Size() + 1
	}
	buf := make([]byte, 0, max(min(size, limit), 1))
	r := io.LimitReader(f, limit)
	for {
		if len(buf) == cap(buf) {
			// The file grew, or was not sized: let append pick.
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// ErrNotRegular is wrapped by NotRegularError.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by TooLargeError.
var ErrTooLarge = errors.New("file too large")

// ErrOutside is wrapped by OutsideError.
var ErrOutside = errors.New("file outside its root")

// NotRegularError reports a path that is a symlink where none is allowed,
// a directory, a named pipe, a device or a socket: opening a pipe blocks
// until a writer comes, and a device can be read forever.
type NotRegularError struct {
	Path string
	// Kind says what it is instead: "a symlink", "a named pipe", …
	Kind string
}

func (e *NotRegularError) Error() string {
	what := ""
	if e.Kind != "" {
		what = e.Kind + ", "
	}
	return fmt.Sprintf("%s is %snot a regular file; fledge reads only regular files there: replace it with one", e.Path, what)
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// TooLargeError reports a file larger than its reader's bound.
type TooLargeError struct {
	Path string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes; fledge will not read it", e.Path, e.Max)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// OutsideError reports a file inside a root that symlinks lead out of.
type OutsideError struct {
	Path, Root string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s leads outside %s through a symlink; fledge reads only files inside it", e.Path, e.Root)
}

func (e *OutsideError) Unwrap() error { return ErrOutside }

// Kind names what a file mode is, for errors: "a symlink", "a directory",
// "a named pipe", "a device", "a socket", or "" for anything else.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return ""
}

// Open opens path for reading, following symlinks, and returns it only if
// it is a regular file. The open never blocks (see the package doc). A
// missing file's error wraps os.ErrNotExist.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	if _, err := regular(f, path); err != nil {
		return nil, err
	}
	return f, nil
}

// OpenNoLink is Open for a path that must not itself be a symlink (its
// directories may be): a plugin's manifest is the file committed there,
// not whatever a link in the plugin points at.
func OpenNoLink(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock|noFollow, 0)
	if err != nil {
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return nil, &NotRegularError{Path: path, Kind: Kind(li.Mode())}
		}
		return nil, err
	}
	fi, err := regular(f, path)
	if err != nil {
		return nil, err
	}
	// Where the open followed a link anyway (Windows has no O_NOFOLLOW),
	// or the name was swapped for one since: the name must still be the
	// file that was opened.
	li, lerr := os.Lstat(path)
	if lerr != nil || !os.SameFile(fi, li) {
		f.Close()
		kind := ""
		if lerr == nil {
			kind = Kind(li.Mode())
		}
		return nil, &NotRegularError{Path: path, Kind: kind}
	}
	return f, nil
}

// OpenInRoot opens name, a path relative to root, for reading, with the
// rules of Open, resolving symlinks only while they stay inside root
// (through os.Root: a link that leads out, or is absolute, is refused).
// The error for a link leading out is an OutsideError; a missing file's
// wraps os.ErrNotExist.
func OpenInRoot(root, name string) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	path := filepath.Join(root, name)
	f, err := r.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		// os.Root does not say why it refused; look, only to explain.
		if real, rerr := filepath.EvalSymlinks(path); rerr == nil {
			if realRoot, rerr := filepath.EvalSymlinks(root); rerr == nil && !within(realRoot, real) {
				return nil, &OutsideError{Path: path, Root: root}
			}
		}
		return nil, fmt.Errorf("open %s inside %s: %w", name, root, err)
	}
	if _, err := regular(f, path); err != nil {
		return nil, err
	}
	return f, nil
}

// regular checks with fstat that f is a regular file, and closes it
// otherwise.
func regular(f *os.File, path string) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	return fi, nil
}

// ReadFile reads the regular file at path (following symlinks), refusing
// one larger than max bytes after reading no more than max+1. A missing
// file's error wraps os.ErrNotExist.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	return read(f, err, path, max)
}

// ReadFileNoLink is ReadFile for a path that must not be a symlink itself
// (see OpenNoLink).
func ReadFileNoLink(path string, max int64) ([]byte, error) {
	f, err := OpenNoLink(path)
	return read(f, err, path, max)
}

// ReadInRoot is ReadFile for root/name, with links resolved only inside
// root (see OpenInRoot).
func ReadInRoot(root, name string, max int64) ([]byte, error) {
	f, err := OpenInRoot(root, name)
	return read(f, err, filepath.Join(root, name), max)
}

func read(f *os.File, err error, path string, max int64) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadAll(f, max+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return data, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

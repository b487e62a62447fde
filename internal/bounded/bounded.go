// Package bounded reads files whose size fledge does not control.
package bounded

import (
	"fmt"
	"io"
	"os"
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

// CheckRegular returns an error when path exists but is not a regular file
// (after following symlinks): opening a named pipe blocks until a writer
// comes, and a device can be read forever. A missing path is no error
// here; the caller's open reports it.
func CheckRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil
	}
	what := ""
	switch m := fi.Mode(); {
	case m.IsDir():
		what = "a directory, "
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe, "
	case m&os.ModeDevice != 0:
		what = "a device, "
	case m&os.ModeSocket != 0:
		what = "a socket, "
	}
	return fmt.Errorf("%s is %snot a regular file; fledge reads only regular files there: replace it with one", path, what)
}

// ReadFile reads the regular file at path, refusing one larger than max
// bytes (reading no more than max+1) and, through CheckRegular, anything
// that is not a regular file. A missing file's error wraps os.ErrNotExist.
func ReadFile(path string, max int64) ([]byte, error) {
	if err := CheckRegular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadAll(f, max+1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes; fledge will not read it", path, max)
	}
	return data, nil
}

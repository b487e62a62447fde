//go:build unix

package runner

import (
	"errors"
	"syscall"
)

// nbWriter writes to the plugin's stdin without waiting. The raw
// connection and the callback are made once per run, not per message:
// each would otherwise be a heap allocation on every answer.
type nbWriter struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	buf []byte
	n   int
	err error
}

func (q *inbox) initTryWrite() {
	rc, err := q.f.SyscallConn()
	if err != nil {
		return
	}
	w := &q.nb
	w.rc = rc
	w.fn = func(fd uintptr) bool {
		w.n, w.err = syscall.Write(int(fd), w.buf)
		return true
	}
}

// tryWrite writes what the pipe takes right now, without waiting. It
// returns an error only when the pipe is broken. q.mu must be held.
func (q *inbox) tryWrite(b []byte) (int, error) {
	w := &q.nb
	if w.rc == nil {
		return 0, nil
	}
	w.buf, w.n, w.err = b, 0, nil
	err := w.rc.Write(w.fn)
	n, werr := w.n, w.err
	w.buf = nil
	switch {
	case err != nil:
		return 0, err
	case errors.Is(werr, syscall.EAGAIN), errors.Is(werr, syscall.EINTR):
		return 0, nil
	case werr != nil:
		return 0, werr
	case n < 0:
		return 0, nil
	}
	return n, nil
}

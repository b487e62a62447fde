package runner

import (
	"errors"
	"os"
	"time"
)

// pipeReader reads a child's stdout or stderr pipe until EOF. Fledge stops
// waiting on it with a read deadline once the child has exited (a
// descendant may hold the pipe open for ever); when one passes, the reader
// goes on to read, without waiting, what the pipe holds at that moment, and
// only then reports os.ErrDeadlineExceeded. So the deadline bounds the wait
// for a descendant and never drops what was written before it: Go's poller
// fails a read whose deadline has passed without looking at the pipe, which
// lost the end of a plugin's output whenever fledge (or the writer it
// copies to) was still busy when the deadline came.
type pipeReader struct {
	f    *os.File
	tail bool // a deadline passed: reading what the pipe held then
	left int  // how much of it is still to be read
}

func (r *pipeReader) Read(p []byte) (int, error) {
	if !r.tail {
		n, err := r.f.Read(p)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		// What the pipe holds now is all that is read from here on: a
		// descendant writing without end cannot keep fledge reading.
		r.tail, r.left = true, pipeHolds(r.f)
		_ = r.f.SetReadDeadline(time.Time{})
	}
	if r.left <= 0 || len(p) == 0 {
		return 0, os.ErrDeadlineExceeded
	}
	n, err := readNow(r.f, p[:min(len(p), r.left)])
	r.left -= n
	if n == 0 && err == nil {
		r.left = 0 // empty: nothing more was waiting
		return 0, os.ErrDeadlineExceeded
	}
	return n, err
}

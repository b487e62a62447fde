//go:build wasip1

package pluginsdk

import (
	"bytes"
	"encoding/json"
	"io"
	"time"
	"unsafe"
)

// A wasm plugin talks to fledge through the host functions of module
// "fledge", as the Rust fledge defines them: send writes one message, recv
// reads the next (in pieces when it is longer than the buffer) and returns 0
// when nothing is waiting and nothing is owed.

//go:wasmimport fledge send
func hostSend(ptr unsafe.Pointer, n uint32)

//go:wasmimport fledge recv
func hostRecv(ptr unsafe.Pointer, max uint32) int32

// newTransport connects over the host functions.
func newTransport() *IO {
	w := &hostWriter{kick: make(chan struct{}, 1)}
	return NewIO(&hostReader{kick: w.kick, chunk: make([]byte, 64<<10)}, w)
}

// hostWriter sends each line written to it as one message.
type hostWriter struct{ kick chan struct{} }

func (w *hostWriter) Write(p []byte) (int, error) {
	rest := p
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(line) > 0 {
			hostSend(unsafe.Pointer(&line[0]), uint32(len(line)))
		}
	}
	// A request may now be owed an answer: wake the reader.
	select {
	case w.kick <- struct{}{}:
	default:
	}
	return len(p), nil
}

// hostReader reads messages, one line each. When nothing is waiting it
// sleeps until the plugin sends something (its answer may then be owed) or
// a short while passes (for a cancel fledge sends unasked). recv's -1 means
// fledge closed the stream: io.EOF.
type hostReader struct {
	kick    chan struct{}
	chunk   []byte
	pending []byte
	eof     bool // recv said fledge closed the stream
}

const idlePoll = 50 * time.Millisecond

func (r *hostReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		if msg := r.next(); msg != nil {
			r.pending = append(msg, '\n')
			break
		}
		t := time.NewTimer(idlePoll)
		select {
		case <-r.kick:
		case <-t.C:
		}
		t.Stop()
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// next assembles one message, or returns nil when none is waiting. A
// message that fills the buffer exactly may go on: it ended when it is a
// whole JSON value (no proper prefix of one is) or recv has no more.
func (r *hostReader) next() []byte {
	var msg []byte
	for {
		n := hostRecv(unsafe.Pointer(&r.chunk[0]), uint32(len(r.chunk)))
		if n <= 0 {
			r.eof = n < 0
			return msg
		}
		msg = append(msg, r.chunk[:n]...)
		if int(n) < len(r.chunk) || json.Valid(msg) {
			return msg
		}
	}
}

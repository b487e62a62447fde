package wasmhost

import (
	"bytes"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/protocol"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// maxOutputChunk bounds the text of one output message made from the
// plugin's WASI stdout: even escaped (a control byte becomes six) it stays
// below the protocol's 1 MiB line limit.
const maxOutputChunk = 128 << 10

// stdoutWriter turns what the plugin writes to WASI stdout into output
// messages on the outbound stream, so it is shown, cleaned and captured
// like any output. A UTF-8 sequence split across writes is held back until
// it is whole.
type stdoutWriter struct {
	out     *outbound
	meter   *meter
	partial []byte
}

func (w *stdoutWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(w.partial) > 0 {
		p = append(w.partial, p...)
		w.partial = nil
	}
	for len(p) > 0 {
		chunk := p
		if len(chunk) > maxOutputChunk {
			chunk = chunk[:maxOutputChunk]
		}
		cut := len(chunk) - incompleteTail(chunk)
		if cut == 0 {
			if len(p) > len(chunk) {
				cut = len(chunk) // not UTF-8 at all: let JSON replace it
			} else {
				w.partial = append([]byte(nil), chunk...)
				return n, nil
			}
		}
		if err := w.out.output(chunk[:cut], w.meter); err != nil {
			return n, err
		}
		p = p[cut:]
	}
	return n, nil
}

// flush sends what is held back (an incomplete sequence, shown as U+FFFD).
func (w *stdoutWriter) flush() {
	if len(w.partial) > 0 {
		_ = w.out.output(w.partial, w.meter)
		w.partial = nil
	}
}

// incompleteTail returns how many bytes at the end of b begin a UTF-8
// sequence that b does not complete.
func incompleteTail(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// appendOutput appends an output message carrying text to dst.
func appendOutput(dst, text []byte) []byte { return protocol.AppendOutput(dst, string(text)) }

// stderrWriter passes what the plugin writes to WASI stderr to fledge's
// stderr, a line at a time, cleaned of control sequences. A line longer
// than maxStderrLine is passed in pieces.
type stderrWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

const maxStderrLine = 4 << 10

func (s *stderrWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.buf = append(s.buf, p...)
			if len(s.buf) >= maxStderrLine {
				s.emit(false)
			}
			break
		}
		s.buf = append(s.buf, p[:i]...)
		s.emit(true)
		p = p[i+1:]
	}
	return n, nil
}

func (s *stderrWriter) emit(newline bool) {
	text := termsafe.Text(string(s.buf))
	if newline {
		text += "\n"
	}
	s.buf = s.buf[:0]
	_, _ = io.WriteString(s.w, text)
}

func (s *stderrWriter) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) > 0 {
		s.emit(true)
	}
}

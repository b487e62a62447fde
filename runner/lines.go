package runner

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"

	"github.com/corvidlabs/fledge-go/protocol"
)

// errLineTooLong ends a run whose plugin wrote a line longer than the cap.
var errLineTooLong = errors.New("line too long")

// lineReader reads NDJSON lines of at most max bytes. Memory stays bounded
// by max however long a line the plugin writes: the rest of an over-long
// line is never buffered.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBuffer), max: max}
}

// readBuffer is how much of a plugin's output is read at once: a
// quarter of the pipe it writes to (streamPipe). Each read that empties
// the full pipe by that much wakes the plugin once, and the texts decoded
// from it go out in one write, which wakes the program reading fledge's
// output once: a flood's 1M messages take 340 reads, not 1,350
// (bench/all.sh's stream rows gained 4 to 9 points of the direct pipe);
// 1 MiB did worse.
const readBuffer = 256 << 10

// next returns the next line without its line ending. The slice is valid
// until the following call. A last line without a newline is returned
// before io.EOF.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		if len(l.buf)+len(frag) > l.max+1 || (err != nil && len(l.buf)+len(frag) > l.max) {
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			line := frag
			if len(l.buf) > 0 {
				l.buf = append(l.buf, frag...)
				line = l.buf
			}
			return trimEOL(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			l.buf = append(l.buf, frag...)
		default:
			l.buf = append(l.buf, frag...)
			if errors.Is(err, io.EOF) && len(l.buf) > 0 {
				return trimEOL(l.buf), nil
			}
			return nil, err
		}
	}
}

// outputs decodes the output messages at the head of what is already
// buffered, appending their texts to dst, and consumes them
// (protocol.AppendOutputTexts): a flood is read a buffer at a time, not a
// line at a time. n is the bytes consumed, 0 when the next line is
// anything else or not yet whole, for next to read.
//
// dst is first given room for texts as long as all that is buffered (a
// text is shorter than its line): grown in one step, not by append's
// small ones, which allocated ~1 MB of fresh memory, every page of it a
// page fault, to reach a 256 KiB buffer's texts.
func (l *lineReader) outputs(dst []byte) (out []byte, n int) {
	buf, _ := l.r.Peek(l.r.Buffered())
	out, n = protocol.AppendOutputTexts(slices.Grow(dst, len(buf)), buf, l.max)
	_, _ = l.r.Discard(n)
	return out, n
}

// buffered reports whether a further line may be available without
// blocking.
func (l *lineReader) buffered() bool { return l.r.Buffered() > 0 }

// whole reports whether a whole line is buffered: next returns it
// without reading.
func (l *lineReader) whole() bool {
	buf, _ := l.r.Peek(l.r.Buffered())
	return bytes.IndexByte(buf, '\n') >= 0
}

// more reads once into the buffer, keeping the start of a line it holds,
// so that outputs can take the line once it is whole. It reports false,
// reading nothing, when the buffer is full (the line is longer than it:
// next reads it), and false when the read fails: next reads again and
// reports why.
func (l *lineReader) more() bool {
	n := l.r.Buffered()
	if n >= l.r.Size() {
		return false
	}
	buf, _ := l.r.Peek(n + 1)
	return len(buf) > n
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

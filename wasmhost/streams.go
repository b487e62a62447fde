package wasmhost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/corvidlabs/fledge-go/protocol"
)

// outbound is the plugin's side of the stream fledge's engine reads (the
// plugin's "stdout"). Messages are buffered and written when the plugin
// waits, when 64 KiB are pending, or by a flusher every few milliseconds,
// so a chatty plugin costs one write per batch, not per message.
type outbound struct {
	mu  sync.Mutex
	f   *os.File
	buf []byte
	err error
}

const outboundBatch = 64 << 10

// lock takes the buffer; waiting for it while the flusher is blocked on a
// full pipe is waiting on fledge, not computing.
func (o *outbound) lock(m *meter) {
	if !o.mu.TryLock() {
		done := m.wait()
		o.mu.Lock()
		done()
	}
}

// line queues one message; msg must not hold a newline.
func (o *outbound) line(msg []byte, m *meter) error {
	o.lock(m)
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	o.buf = append(o.buf, msg...)
	o.buf = append(o.buf, '\n')
	if len(o.buf) >= outboundBatch {
		return o.flushLocked(m)
	}
	return nil
}

// output queues an output message carrying text.
func (o *outbound) output(text []byte, m *meter) error {
	o.lock(m)
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	o.buf = appendOutput(o.buf, text)
	if len(o.buf) >= outboundBatch {
		return o.flushLocked(m)
	}
	return nil
}

// flush writes what is pending. m, when not nil, is told the write is a
// wait (a full pipe means fledge is busy, not the plugin).
func (o *outbound) flush(m *meter) error {
	if m == nil {
		o.mu.Lock()
	} else {
		o.lock(m)
	}
	defer o.mu.Unlock()
	return o.flushLocked(m)
}

func (o *outbound) flushLocked(m *meter) error {
	if len(o.buf) == 0 || o.err != nil {
		return o.err
	}
	if m != nil {
		defer m.wait()()
	}
	_, err := o.f.Write(o.buf)
	o.buf = o.buf[:0]
	if err != nil {
		o.err = err
	}
	return err
}

// pending reports whether anything waits to be written.
func (o *outbound) pending() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.buf) > 0 && o.err == nil
}

// message is one inbound line with its type and id read once.
type message struct {
	data []byte
	typ  string
	id   string // the raw JSON id, "" when absent
}

// answers reports whether m settles something the plugin is owed: init, or
// the response or cancel of one of its requests.
func (m *message) answers() bool {
	return m.typ == protocol.TypeInit || (m.typ == protocol.TypeResponse || m.typ == protocol.TypeCancel) && m.id != ""
}

func parseMessage(line []byte) message {
	var head struct {
		Type string          `json:"type"`
		ID   json.RawMessage `json:"id"`
	}
	m := message{data: line}
	if json.Unmarshal(line, &head) == nil {
		m.typ = head.Type
		if id := bytes.TrimSpace(head.ID); len(id) > 0 && string(id) != "null" {
			m.id = string(id)
		}
	}
	return m
}

// inbox holds the messages fledge sent that the plugin has not taken yet.
// A pump goroutine fills it from the pipe, stopping while more than max
// bytes wait, so a plugin that never reads leaves the backlog to fledge's
// own bound.
type inbox struct {
	mu      sync.Mutex
	msgs    []message
	size    int
	max     int
	eof     bool
	err     error
	changed chan struct{} // closed and replaced on every change
}

func newInbox(max int) *inbox {
	return &inbox{max: max, changed: make(chan struct{})}
}

func (q *inbox) notifyLocked() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// pump reads lines of at most maxLine bytes from r into the inbox until
// EOF, an error or stop.
func (q *inbox) pump(r io.Reader, maxLine int, stop <-chan struct{}) {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for err == nil {
		var line []byte
		line, err = readLine(br, maxLine)
		if len(line) > 0 {
			m := parseMessage(line)
			q.mu.Lock()
			for q.size > q.max {
				ch := q.changed
				q.mu.Unlock()
				select {
				case <-ch:
				case <-stop:
					return
				}
				q.mu.Lock()
			}
			q.msgs = append(q.msgs, m)
			q.size += len(line)
			q.notifyLocked()
			q.mu.Unlock()
		}
	}
	q.mu.Lock()
	q.eof = true
	if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
		q.err = err
	}
	q.notifyLocked()
	q.mu.Unlock()
}

var errInboundTooLong = errors.New("fledge sent a message too long to deliver")

// readLine returns the next line without its ending, at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max+1 {
			return nil, errInboundTooLong
		}
		line = append(line, frag...)
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// take removes and returns the first message that match accepts (any when
// match is nil). When none is there it waits if block is set, until one
// comes, the stream ends or done; ok is false when it returns none.
// closed reports whether nothing more can arrive: the stream ended and
// everything in it was taken.
func (q *inbox) closed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.eof && len(q.msgs) == 0
}

func (q *inbox) take(match func(*message) bool, block bool, done <-chan struct{}) (message, bool) {
	q.mu.Lock()
	for {
		for i := range q.msgs {
			if match == nil || match(&q.msgs[i]) {
				m := q.msgs[i]
				q.msgs = append(q.msgs[:i], q.msgs[i+1:]...)
				q.size -= len(m.data)
				q.notifyLocked()
				q.mu.Unlock()
				return m, true
			}
		}
		if q.eof || !block {
			q.mu.Unlock()
			return message{}, false
		}
		ch := q.changed
		q.mu.Unlock()
		select {
		case <-ch:
		case <-done:
			return message{}, false
		}
		q.mu.Lock()
	}
}

package runner

import (
	"errors"
	"os"
	"sync"

	"github.com/corvidlabs/fledge-go/protocol"
)

// errBacklog ends a run whose plugin stopped reading its stdin while fledge
// still had more than the allowed bytes to send it.
var errBacklog = errors.New("plugin stopped reading its stdin")

// inbox writes messages to the plugin's stdin from its own goroutine, so the
// message loop never blocks on a plugin that does not read. What is queued
// is bounded by max bytes.
type inbox struct {
	f   *os.File
	max int

	mu      sync.Mutex
	queue   [][]byte
	pending int
	writing bool // the writer goroutine holds a batch
	closing bool
	broken  bool // the plugin's stdin is gone: drop everything
	wake    chan struct{}
	done    chan struct{}
	nb      nbWriter // the non-blocking write (under mu)
}

func newInbox(f *os.File, max int) *inbox {
	q := &inbox{f: f, max: max, wake: make(chan struct{}, 1), done: make(chan struct{})}
	q.initTryWrite()
	go q.run()
	return q
}

// send queues one message. It fails only when more than max bytes were
// already waiting, unread, before it; a plugin that has closed its stdin
// silently gets nothing more.
func (q *inbox) send(v any) error {
	b, err := protocol.Encode(v)
	if err != nil {
		return err
	}
	return q.write(b, true)
}

// sendLine queues one encoded message line, as send does. The caller may
// reuse msg once sendLine returns: what has to wait is copied.
func (q *inbox) sendLine(msg []byte) error { return q.write(msg, false) }

func (q *inbox) write(msg []byte, owned bool) error {
	q.mu.Lock()
	if q.broken || q.closing {
		q.mu.Unlock()
		return nil
	}
	if len(q.queue) == 0 && !q.writing {
		// Nothing queued: try the write now, without blocking, and save
		// the round trip through the writer goroutine.
		n, err := q.tryWrite(msg)
		if err != nil {
			q.broken = true
			q.mu.Unlock()
			return nil
		}
		if n == len(msg) {
			q.mu.Unlock()
			return nil
		}
		msg = msg[n:]
	}
	if !owned {
		msg = append([]byte(nil), msg...)
	}
	// Only what was already waiting counts against the cap: one large
	// answer (an exec's output) is fine; answers piling up unread are not.
	over := q.pending > q.max
	q.queue = append(q.queue, msg)
	q.pending += len(msg)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	if over {
		return errBacklog
	}
	return nil
}

func (q *inbox) run() {
	defer close(q.done)
	for {
		q.mu.Lock()
		batch := q.queue
		q.queue = nil
		q.writing = len(batch) > 0
		closing := q.closing
		q.mu.Unlock()
		if len(batch) == 0 {
			if closing {
				_ = q.f.Close()
				return
			}
			<-q.wake
			continue
		}
		for _, msg := range batch {
			_, err := q.f.Write(msg)
			q.mu.Lock()
			q.pending -= len(msg)
			if err != nil {
				q.broken = true
				q.queue = nil
				q.pending = 0
			}
			broken := q.broken
			q.mu.Unlock()
			if broken {
				break
			}
		}
		q.mu.Lock()
		q.writing = false
		q.mu.Unlock()
	}
}

// close lets the queue drain, then closes the plugin's stdin (so a plugin
// waiting for more input sees EOF).
func (q *inbox) close() {
	q.mu.Lock()
	q.closing = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// abort drops whatever is queued and unblocks a write stuck on a plugin
// that will never read again.
func (q *inbox) abort() {
	q.mu.Lock()
	q.broken = true
	q.queue = nil
	q.pending = 0
	q.closing = true
	q.mu.Unlock()
	_ = q.f.Close()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

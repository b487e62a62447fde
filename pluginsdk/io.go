package pluginsdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/corvidlabs/fledge-go/protocol"
)

// MaxLineSize bounds one inbound line (an init or a response). A longer line
// ends the connection with ErrLineTooLong rather than growing without limit.
// It leaves room for an exec response carrying fledge's 10 MiB of stdout and
// of stderr, JSON-escaped.
const MaxLineSize = 64 << 20

// MaxSendSize is the longest line fledge accepts from a plugin (1 MiB, not
// counting the newline). Send refuses a longer message instead of letting
// fledge end the run; Output splits long text to stay below it.
const MaxSendSize = 1 << 20

// IO is a plugin's connection to fledge: it reads init, response and cancel
// messages and writes one JSON line per outbound message.
//
// All methods are safe for concurrent use. Requests (Prompt, Exec, …) may be
// in flight from several goroutines at once: each gets the response carrying
// its own id, whatever order fledge answers in.
type IO struct {
	w   io.Writer
	wmu sync.Mutex // one message per Write, never interleaved

	r       io.Reader
	lines   *bufio.Scanner // made on first read, bounded by maxLine
	maxLine int
	maxSend int
	tty     bool // stdin is a terminal (or /dev/null): nobody speaks fledge-v1 there

	nextID atomic.Uint64

	initMu sync.Mutex // serialises RecvInit

	mu      sync.Mutex
	init    *protocol.Init
	pending map[string]chan protocol.Inbound
	cancel  *CancelError // the run-wide cancel, once received
	readErr error        // why the reader stopped, once it has

	canceled chan struct{} // closed on a run-wide cancel
	closed   chan struct{} // closed when the reader stops
	ctx      context.Context
	stop     context.CancelCauseFunc
}

// New connects to fledge: over the process's stdin and stdout for a native
// plugin, and over fledge's host functions (send, recv) for one built with
// GOOS=wasip1 GOARCH=wasm, so the same plugin code runs either way.
func New() *IO { return newTransport() }

// NewIO connects to fledge over r (inbound) and w (outbound). Each message is
// written with a single Write call; if w has a Flush() error method it is
// called after each message.
func NewIO(r io.Reader, w io.Writer) *IO {
	ctx, stop := context.WithCancelCause(context.Background())
	return &IO{
		w:        w,
		r:        r,
		maxLine:  MaxLineSize,
		maxSend:  MaxSendSize,
		pending:  map[string]chan protocol.Inbound{},
		canceled: make(chan struct{}),
		closed:   make(chan struct{}),
		ctx:      ctx,
		stop:     stop,
	}
}

// RecvInit reads the init message, which fledge sends first, and starts
// listening for responses and cancels. Blank lines, malformed lines and
// messages of unknown types before it are skipped. Calling it again returns
// the same init.
func (p *IO) RecvInit() (*protocol.Init, error) {
	p.initMu.Lock()
	defer p.initMu.Unlock()
	if init := p.Init(); init != nil {
		return init, nil
	}
	if p.tty {
		return nil, errors.New("stdin is a terminal or device, not fledge: this is a fledge plugin, started by fledge; install it and run it as `fledge <command>`")
	}
	for {
		line, err := p.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("waiting for init: %w", ErrClosed)
			}
			return nil, fmt.Errorf("waiting for init: %w", err)
		}
		m, ok := decodeInbound(line)
		if !ok {
			continue
		}
		switch m.Type {
		case protocol.TypeCancel:
			if id, ok := idString(m.ID); ok && id == "" {
				return nil, p.cancelAll(m.Reason)
			}
		case protocol.TypeInit:
			var init protocol.Init
			if err := json.Unmarshal(line, &init); err != nil {
				return nil, fmt.Errorf("malformed init message: %w", err)
			}
			if init.Protocol != "" && init.Protocol != protocol.Version {
				return nil, fmt.Errorf("fledge speaks protocol %q, this plugin speaks %q", init.Protocol, protocol.Version)
			}
			p.mu.Lock()
			p.init = &init
			p.mu.Unlock()
			go p.readLoop()
			return &init, nil
		}
	}
}

// Init returns the init message once RecvInit has read it, else nil.
func (p *IO) Init() *protocol.Init {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.init
}

// Context is canceled when fledge cancels the whole run or closes stdin;
// context.Cause says which (a *CancelError or an ErrClosed). Pass it to
// long-running work so that Ctrl+C in fledge stops it.
func (p *IO) Context() context.Context { return p.ctx }

// Send writes one message as one line. It is the primitive under the typed
// helpers; use it for message types this SDK does not know yet.
func (p *IO) Send(m protocol.Outbound) error {
	line, err := protocol.Encode(m)
	if err != nil {
		return fmt.Errorf("encode %s message: %w", m.Type, err)
	}
	return p.writeLine(m.Type, line)
}

// writeLine writes one encoded message, which ends in its newline.
func (p *IO) writeLine(typ string, line []byte) error {
	if n := len(line) - 1; n > p.maxSend {
		return fmt.Errorf("%s message is %d bytes encoded, more than the %d fledge accepts on one line", typ, n, p.maxSend)
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if _, err := p.w.Write(line); err != nil {
		return fmt.Errorf("send %s message: %w", typ, err)
	}
	if f, ok := p.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("send %s message: %w", typ, err)
		}
	}
	return nil
}

// Request sends m with a fresh id and waits for fledge's answer, returning
// the response's raw value. It returns a *CancelError if fledge cancels this
// request or the whole run, and an error wrapping ErrClosed if stdin ends
// first. It is the primitive under the typed request helpers.
func (p *IO) Request(m protocol.Outbound) (json.RawMessage, error) {
	raw, _, err := p.request(m)
	return raw, err
}

// request is Request, also returning the id it used.
func (p *IO) request(m protocol.Outbound) (json.RawMessage, string, error) {
	p.mu.Lock()
	switch {
	case p.init == nil:
		p.mu.Unlock()
		return nil, "", ErrNoInit
	case p.cancel != nil:
		p.mu.Unlock()
		return nil, "", p.cancel
	case p.readErr != nil:
		p.mu.Unlock()
		return nil, "", p.readErr
	}
	id := strconv.FormatUint(p.nextID.Add(1), 10)
	ch := make(chan protocol.Inbound, 1)
	p.pending[id] = ch // registered before sending, so no answer is missed
	p.mu.Unlock()

	m.ID = json.RawMessage(strconv.Quote(id))
	if err := p.Send(m); err != nil {
		p.forget(id)
		return nil, id, err
	}

	var in protocol.Inbound
	select {
	case in = <-ch:
	case <-p.canceled:
		select {
		case in = <-ch: // answered just before the cancel: keep the answer
		default:
			p.forget(id)
			return nil, id, p.cancel
		}
	case <-p.closed:
		select {
		case in = <-ch:
		default:
			p.forget(id)
			return nil, id, p.readErr
		}
	}
	if in.Type == protocol.TypeCancel {
		return nil, id, &CancelError{ID: id, Reason: in.Reason}
	}
	return in.Value, id, nil
}

func (p *IO) forget(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// readLine returns the next non-blank line. Only RecvInit and then the
// reader goroutine call it, never both at once.
func (p *IO) readLine() ([]byte, error) {
	if p.lines == nil {
		// +1: the newline. The first buffer must not exceed the bound,
		// or the Scanner takes its size as the bound.
		p.lines = bufio.NewScanner(p.r)
		p.lines.Buffer(make([]byte, 0, min(64<<10, p.maxLine+1)), p.maxLine+1)
	}
	for p.lines.Scan() {
		line := bytes.TrimSpace(p.lines.Bytes())
		if len(line) > 0 {
			return line, nil
		}
	}
	if err := p.lines.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, ErrLineTooLong
		}
		return nil, err
	}
	return nil, io.EOF
}

// readLoop dispatches inbound messages to the requests waiting for them
// until stdin ends. Lines that are not JSON objects, responses nobody waits
// for, and unknown types are ignored, as the protocol asks.
func (p *IO) readLoop() {
	for {
		line, err := p.readLine()
		if err != nil {
			p.finish(err)
			return
		}
		m, ok := decodeInbound(line)
		if !ok {
			continue
		}
		switch m.Type {
		case protocol.TypeResponse, protocol.TypeCancel:
			id, ok := idString(m.ID)
			if !ok {
				continue
			}
			if id == "" {
				if m.Type == protocol.TypeCancel {
					p.cancelAll(m.Reason)
				}
				continue
			}
			p.mu.Lock()
			ch, ok := p.pending[id]
			delete(p.pending, id)
			p.mu.Unlock()
			if ok {
				ch <- m // buffered and sent at most once: never blocks
			}
		}
	}
}

// cancelAll records a run-wide cancel (the first one wins) and wakes every
// waiting request.
func (p *IO) cancelAll(reason string) *CancelError {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cancel == nil {
		p.cancel = &CancelError{Reason: reason}
		close(p.canceled)
		p.stop(p.cancel)
	}
	return p.cancel
}

func (p *IO) finish(err error) {
	switch {
	case errors.Is(err, io.EOF):
		err = ErrClosed
	default:
		err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	p.mu.Lock()
	p.readErr = err
	close(p.closed)
	p.mu.Unlock()
	p.stop(err)
}

// decodeInbound parses one inbound line. It reports false for anything that
// is not a JSON object with the expected field types.
func decodeInbound(line []byte) (protocol.Inbound, bool) {
	var m protocol.Inbound
	if len(line) == 0 || line[0] != '{' {
		return m, false
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return m, false
	}
	return m, true
}

// idString decodes a message's id. An absent, null or empty id is "" (for a
// cancel: the whole run). An id that is not a string reports false: the
// plugin only sends string ids, so it matches nothing.
func idString(raw json.RawMessage) (string, bool) {
	var id string
	if len(raw) == 0 {
		return "", true
	}
	if json.Unmarshal(raw, &id) != nil {
		return "", false
	}
	return id, true
}

package mcpserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// How calls stop.
//
// A call the client cancels (notifications/cancelled) is Ctrl+C for its
// plugin: the runner's schedule (a protocol plugin's cancel, SIGINT,
// SIGTERM, SIGKILL; the runner is Headless, so a plugin without the
// protocol gets SIGINT at once and the same SIGTERM and SIGKILL, and its
// whole process group is stopped).
//
// A call nobody will read the answer of is hung up: the client closed its
// input (stdio EOF) and the call did not end within Options.Drain, the
// client went away from the HTTP request that carries the call (fledge
// keeps no events to resume a stream from), its HTTP session was deleted,
// or the server is stopping (SIGINT, SIGTERM).
// It starts as a cancelled call does and, if its plugin's group is still
// there Options.HangUp later, the group gets SIGKILL. A server told to
// stop answers every call (interrupted) and closes its session within
// HangUp+settle (3 s by default); on stdio EOF, within Drain+HangUp+settle
// (5 s), still below the 5 s the go-sdk's client waits before its SIGTERM.

// Defaults of how calls stop.
const (
	// DefaultDrain is how long calls still running when the client closes
	// its input may go on to be answered.
	DefaultDrain = 2 * time.Second
	// DefaultHangUp is how long a hung-up call's plugin has before its
	// process group is killed.
	DefaultHangUp = 2 * time.Second
)

// running is a call in progress, as the server stops it.
type running struct {
	session string // the HTTP session's id ("" on stdio)
	stream  string // the HTTP request that carried it ("" on stdio)
	cancel  context.CancelFunc
	kill    chan struct{} // Request.Kill
	once    sync.Once
}

// hangUp stops the call: at once as a cancel does, then its plugin's group
// is killed after grace.
func (c *running) hangUp(grace time.Duration) {
	c.cancel()
	time.AfterFunc(grace, func() { c.once.Do(func() { close(c.kill) }) })
}

// track registers a call of session; it returns nil when the server is
// stopping and no call may start.
func (s *Server) track(session, stream string, cancel context.CancelFunc) *running {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil
	}
	c := &running{session: session, stream: stream, cancel: cancel, kill: make(chan struct{})}
	s.running[c] = struct{}{}
	s.calls.Add(1)
	return c
}

// untrack ends c.
func (s *Server) untrack(c *running) {
	s.mu.Lock()
	delete(s.running, c)
	s.mu.Unlock()
	s.calls.Done()
}

// hangUp hangs up the calls that match.
func (s *Server) hangUp(match func(*running) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.running {
		if match(c) {
			c.hangUp(s.opts.HangUp)
		}
	}
}

// headerStream names, to the tools/call handler, the HTTP request that
// carried the call. hangUpGone sets it; a client's is dropped.
const headerStream = "Fledge-Internal-Stream"

// hangUpGone wraps the SDK's HTTP handler: the calls of a session being
// deleted, and those of a request whose client went away before their
// answer was written, are hung up (the SDK's close would wait for them,
// and a stream it cannot resume would leave them running to no one).
func (s *Server) hangUpGone(h http.Handler) http.Handler {
	var n atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(headerStream)
		switch id := r.Header.Get("Mcp-Session-Id"); {
		case r.Method == http.MethodDelete && id != "":
			s.hangUp(func(c *running) bool { return c.session == id })
		case r.Method == http.MethodPost:
			stream := strconv.FormatUint(n.Add(1), 10)
			r.Header.Set(headerStream, stream)
			h.ServeHTTP(w, r)
			// Still inside the server's call: the request's context
			// ended only if the client went away.
			if r.Context().Err() != nil {
				s.hangUp(func(c *running) bool { return c.stream == stream })
			}
			return
		}
		h.ServeHTTP(w, r)
	})
}

// streamOf is the HTTP request that carried a call ("" on stdio).
func streamOf(req *mcp.CallToolRequest) string {
	if req.Extra == nil || req.Extra.Header == nil {
		return ""
	}
	return req.Extra.Header.Get(headerStream)
}

// hangUpAll hangs up every call, and lets none start.
func (s *Server) hangUpAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for c := range s.running {
		c.hangUp(s.opts.HangUp)
	}
}

// Shutdown hangs up every call still running and waits for them to end.
func (s *Server) Shutdown() {
	s.hangUpAll()
	s.calls.Wait()
}

// answers are the requests a session read and has not yet answered.
type answers struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool
	idle    chan struct{} // a token when pending may have emptied
}

func newAnswers() *answers {
	return &answers{pending: map[jsonrpc.ID]bool{}, idle: make(chan struct{}, 1)}
}

func (a *answers) read(id jsonrpc.ID) {
	a.mu.Lock()
	a.pending[id] = true
	a.mu.Unlock()
}

func (a *answers) written(id jsonrpc.ID) {
	a.mu.Lock()
	delete(a.pending, id)
	empty := len(a.pending) == 0
	a.mu.Unlock()
	if empty {
		select {
		case a.idle <- struct{}{}:
		default:
		}
	}
}

// wait waits up to d for every request read to be answered, and reports
// whether they were.
func (a *answers) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		a.mu.Lock()
		n := len(a.pending)
		a.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-a.idle:
		case <-t.C:
			return false
		}
	}
}

// settle is how long, past HangUp, hung-up calls have to be answered
// before the session closes anyway: the runner reads what a killed
// plugin wrote for a few hundred milliseconds.
const settle = time.Second

// finish answers what was read: the calls running get up to first to end
// on their own; then they are hung up and answered, at most HangUp+settle
// later.
func (s *Server) finish(a *answers, first time.Duration) {
	if first > 0 && a.wait(first) {
		return
	}
	s.hangUpAll()
	a.wait(s.opts.HangUp + settle)
}

// drainTransport keeps the end of the client's input from the SDK (which
// then refuses to write any answer) until every request read before it is
// answered, or Options.Drain has passed and the calls still running were
// hung up and answered: piped requests lose no answer, and a client that
// hung up mid-call has its call stopped.
type drainTransport struct {
	mcp.Transport
	s *Server
	a *answers
}

func (t drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, s: t.s, a: t.a}, nil
}

type drainConn struct {
	mcp.Connection
	s *Server
	a *answers
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.IsCall() {
		c.a.read(req.ID)
	}
	if errors.Is(err, io.EOF) {
		c.s.finish(c.a, c.s.opts.Drain)
	}
	return msg, err
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
		r.Error = coded(r.Error)
	}
	err := c.Connection.Write(ctx, msg)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.a.written(r.ID)
	}
	return err
}

// coded gives an error the SDK answers without a JSON-RPC code (which
// goes out as code 0) one: a request before initialize is an invalid
// request, anything else an internal error.
func coded(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return err
	}
	code := int64(jsonrpc.CodeInternalError)
	if strings.Contains(err.Error(), "invalid during session initialization") {
		code = jsonrpc.CodeInvalidRequest
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// DefaultIdleTimeout is how long a fetch or a ref listing waits for the
// server to send anything before it gives up (Options.IdleTimeout).
const DefaultIdleTimeout = 60 * time.Second

// TimeoutError reports a server that sent nothing for a whole idle window.
type TimeoutError struct {
	Idle time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("timed out waiting for the server: nothing received for %s", e.Idle)
}

// Timeout marks the error as a timeout, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// watchdog ends one network operation (a listing or a clone) when the
// server keeps it waiting for a whole idle window. Only time spent waiting
// on the server counts: a wait begins when fledge asks the transport for
// something (a connection, the reference advertisement, the next piece of
// the pack) and ends when it answers, so a large clone that keeps moving is
// never cut off, and neither is go-git's own work between reads (indexing
// the pack, writing files).
//
// The operation's transport (see dispatcher) times each wait with it.
type watchdog struct {
	idle   time.Duration
	parent context.Context
	ctx    context.Context
	cancel context.CancelCauseFunc

	// maxDownload bounds the bytes the server may send (0: no bound),
	// derived from maxTreeBytes.
	maxDownload, maxTreeBytes int64

	mu       sync.Mutex
	received int64
	tooLarge error
	waiting  int       // waits in progress
	since    time.Time // when the current wait began
	timer    *time.Timer
}

// watch starts a watchdog for one operation; its context is cancelled
// with a *TimeoutError when the server keeps a wait going for idle.
func watch(ctx context.Context, idle time.Duration) *watchdog {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	wctx, cancel := context.WithCancelCause(ctx)
	return &watchdog{idle: idle, parent: ctx, ctx: wctx, cancel: cancel}
}

// begin marks the start of a wait on the server.
func (w *watchdog) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting++
	if w.waiting > 1 {
		return
	}
	w.since = time.Now()
	if w.timer == nil {
		w.timer = time.AfterFunc(w.idle, w.expire)
	} else {
		w.timer.Reset(w.idle)
	}
}

// end marks the end of a wait.
func (w *watchdog) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting--
	if w.waiting == 0 && w.timer != nil {
		w.timer.Stop()
	}
}

func (w *watchdog) expire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting == 0 {
		return
	}
	if left := w.idle - time.Since(w.since); left > 0 {
		w.timer.Reset(left) // a newer wait began after this timer was set
		return
	}
	w.cancel(&TimeoutError{Idle: w.idle})
}

// stop releases the watchdog; call it when the operation has returned.
func (w *watchdog) stop() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(nil)
}

// result is the operation's error as the caller should see it: nil when it
// succeeded (even if the watchdog fired as it finished), the download
// bound when the server went over it, the timeout when the watchdog ended
// it, the caller's own context error when that was
// cancelled, else err as it is.
func (w *watchdog) result(err error) error {
	if err == nil {
		return nil
	}
	w.mu.Lock()
	tooLarge := w.tooLarge
	w.mu.Unlock()
	if tooLarge != nil {
		return tooLarge
	}
	var te *TimeoutError
	if errors.As(context.Cause(w.ctx), &te) {
		return te
	}
	if perr := w.parent.Err(); perr != nil {
		return perr
	}
	return err
}

// wait runs f, which may block without regard to ctx (go-git dials
// without a context), as one wait: it returns f's result, or the
// watchdog's error if the watchdog or the caller ends the operation first.
// An abandoned f finishes in the background and its result goes to
// discard.
func (w *watchdog) wait(f func() (any, error), discard func(any)) (any, error) {
	w.begin()
	defer w.end()
	type result struct {
		v   any
		err error
	}
	c := make(chan result, 1)
	go func() {
		v, err := f()
		c <- result{v, err}
	}()
	select {
	case r := <-c:
		return r.v, r.err
	case <-w.ctx.Done():
		go func() {
			if r := <-c; r.err == nil && discard != nil {
				discard(r.v)
			}
		}()
		return nil, context.Cause(w.ctx)
	}
}

// watchedSession times the session's waits: the reference advertisement,
// the server's answer to the request, and each read of the pack.
type watchedSession struct {
	transport.UploadPackSession
	w *watchdog
}

func (s *watchedSession) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.AdvertisedReferencesContext(s.w.ctx)
}

func (s *watchedSession) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	s.w.begin()
	defer s.w.end()
	return s.UploadPackSession.AdvertisedReferencesContext(ctx)
}

func (s *watchedSession) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	s.w.begin()
	resp, err := s.UploadPackSession.UploadPack(ctx, req)
	s.w.end()
	if err != nil {
		return nil, err
	}
	watched := packp.NewUploadPackResponseWithPackfile(req, &watchedReader{r: resp, w: s.w})
	watched.ShallowUpdate, watched.ServerResponse = resp.ShallowUpdate, resp.ServerResponse
	return watched, nil
}

// maxRead bounds one read of the pack. go-git's context reader allocates a
// buffer as large as each read it is asked for; the packfile parser asks
// for far more than a network read returns.
const maxRead = 32 << 10

// watchedReader is the pack as it arrives, each read one wait.
type watchedReader struct {
	r io.ReadCloser
	w *watchdog
}

func (r *watchedReader) Read(p []byte) (int, error) {
	if len(p) > maxRead {
		p = p[:maxRead]
	}
	r.w.begin()
	n, err := r.r.Read(p)
	r.w.end()
	return n, r.w.count(n, err)
}

// count adds n received bytes, and fails the read that goes over the
// download bound.
func (w *watchdog) count(n int, err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.received += int64(n)
	if w.maxDownload > 0 && w.received > w.maxDownload {
		if w.tooLarge == nil {
			w.tooLarge = &TooLargeError{What: "download", Limit: w.maxDownload, MaxTreeBytes: w.maxTreeBytes}
		}
		return w.tooLarge
	}
	return err
}

func (r *watchedReader) Close() error { return r.r.Close() }

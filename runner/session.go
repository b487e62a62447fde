package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/project"
	"github.com/corvidlabs/fledge-go/project/gitstate"
	"github.com/corvidlabs/fledge-go/protocol"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// session is one run of a fledge-v1 plugin.
type session struct {
	r   *Runner
	t   *Target
	req Request
	res *Result
	// name prefixes the plugin's logs and fledge's warnings about it.
	name string

	// ctx ends on Ctrl+C or the run's timeout; cancel ends it from inside
	// (a question abandoned with Ctrl+C). live also ends when the plugin
	// exits, withdrawing any question still on screen.
	ctx     context.Context
	cancel  context.CancelCauseFunc
	live    context.Context
	endLive context.CancelFunc

	proc      child
	in        *inbox
	lines     *lineReader
	stdout    *os.File
	errDone   chan struct{} // closed once the plugin's stderr is copied, when it is
	exited    atomic.Bool
	exitAt    atomic.Int64
	watchDone chan struct{}
	loopDone  chan struct{}

	out     *bufio.Writer // plugin output to Stdout (nil when capturing)
	scratch []byte        // reused for decoding output text
	enc     []byte        // reused for encoding answers (loop only)
	msg     protocol.Outbound
	capture *capBuffer

	cwd      string
	project  *project.Info  // the directory fledge runs in; nil if unknown
	repo     *gitstate.Repo // the project's repository, once gitRepo has looked
	repoOnce sync.Once      // init and a wasm plugin's start both ask, at once
	gitWarn  string         // why the git state failed closed, shown once init is sent
	confine  *confinement

	granted  manifest.Capabilities
	denied   map[manifest.Capability]bool
	warned   map[string]bool
	warnings int
	progress *Progress // the display shown, nil when none
	fatal    *Error
}

// runProtocol runs a fledge-v1 plugin: init on stdin, NDJSON both ways,
// in a process group of its own so fledge controls how it is stopped.
func (r *Runner) runProtocol(ctx context.Context, cancel context.CancelCauseFunc, t *Target, req Request, res *Result) error {
	s := &session{
		r: r, t: t, req: req, res: res, name: t.Entry.Name,
		ctx: ctx, cancel: cancel,
		granted:   t.Grants(),
		denied:    map[manifest.Capability]bool{},
		warned:    map[string]bool{},
		watchDone: make(chan struct{}),
		loopDone:  make(chan struct{}),
	}
	s.live, s.endLive = context.WithCancel(ctx)
	defer s.endLive()
	if req.Capture {
		s.capture = &capBuffer{max: r.Limits.Capture}
	} else {
		s.out = bufio.NewWriterSize(r.Stdout, 64<<10)
		if f, ok := r.Stdout.(*os.File); ok && !r.StdoutTTY {
			growPipe(f) // a pipe to the program reading the output
		}
	}
	if wd, err := r.Getwd(); err == nil {
		s.cwd = wd
	}
	s.project = detectProject(s.cwd)
	// The project's git state is read while the plugin starts: neither
	// needs the other (start touches nothing initMessage reads), and the
	// git state takes milliseconds in a large project.
	initc := make(chan protocol.Init, 1)
	go func() { initc <- s.initMessage() }()
	if err := s.start(); err != nil {
		<-initc
		return err
	}
	init := <-initc
	if s.gitWarn != "" {
		s.warnOnce("git", termsafe.Line(s.gitWarn))
	}
	res.Started = true
	if err := s.in.sendLine(protocol.AppendInit(nil, &init)); err != nil {
		s.fail(CodeMalformedResponse, err)
	}
	go s.watch()
	if s.fatal == nil {
		s.loop()
	}
	close(s.loopDone)
	s.finish()
	<-s.watchDone
	_ = s.stdout.Close()
	if s.errDone != nil {
		<-s.errDone // the run's stderr is all written when it returns
	}
	res.ExitCode, res.Signaled, _ = s.proc.exitCode()
	if f := s.proc.failure(); f != nil && s.fatal == nil {
		s.fatal = f
	}
	for c := range s.denied {
		res.Denied = append(res.Denied, c)
	}
	manifest.SortCapabilities(res.Denied)
	if s.capture != nil {
		res.Output, res.OutputTruncated = cleanCapture(s.capture)
	}
	if s.fatal != nil {
		return s.fatal
	}
	return nil
}

// start starts the plugin in its runtime.
func (s *session) start() error {
	rt, err := s.r.runtimeOf(s.t)
	if err != nil {
		return err
	}
	return rt.start(s)
}

// startNative spawns the plugin with its stdin and stdout as pipes.
// Arguments go on argv as well as in init.
func (s *session) startNative() error {
	cmd := exec.Command(s.t.Binary, s.req.Args...)
	cmd.Env = s.r.pluginEnv(s.t, s.req)
	unconfine, profile, err := s.r.confineCmd(cmd, s.t)
	if err != nil {
		return errorf(CodeLaunchFailed, "plugin %s: %v", s.name, err)
	}
	inR, inW, err := pipe()
	if err != nil {
		unconfine()
		return errorf(CodeLaunchFailed, "plugin %s: %v", s.name, err)
	}
	outR, outW, err := pipe()
	if err != nil {
		unconfine()
		inR.Close()
		inW.Close()
		return errorf(CodeLaunchFailed, "plugin %s: %v", s.name, err)
	}
	growPipe(outW)
	cmd.Stdin, cmd.Stdout = inR, outW
	var errDrain *drain
	var errW *os.File
	if f, ok := s.r.Stderr.(*os.File); ok {
		cmd.Stderr = f
	} else {
		var errR *os.File
		if errR, errW, err = pipe(); err == nil {
			cmd.Stderr = errW
			errDrain = startDrain(errR, &syncWriter{w: s.r.Stderr})
		}
	}
	s.proc, err = startProcess(cmd, true, profile)
	inR.Close()
	outW.Close()
	if errW != nil {
		errW.Close()
	}
	if err != nil {
		unconfine()
		inW.Close()
		outR.Close()
		if errDrain != nil {
			errDrain.stop(0)
		}
		return errorf(CodeLaunchFailed, "plugin %s: start %s: %v", s.name, s.t.Binary, err)
	}
	go func() {
		<-s.proc.wait()
		unconfine()
	}()
	if errDrain != nil {
		s.errDone = make(chan struct{})
		go func() {
			defer close(s.errDone)
			<-s.proc.wait()
			errDrain.stop(s.r.Timeouts.ExitGrace)
		}()
	}
	s.stdout = outR
	s.lines = s.stdoutLines()
	s.in = newInbox(inW, s.r.Limits.Backlog)
	return nil
}

// watch handles the plugin's lifecycle: on Ctrl+C or timeout it sends
// cancel, then signals the process group on schedule (stop.go). Once
// the plugin has exited it withdraws pending questions and lets the reader
// give up on a stdout that a grandchild keeps open.
func (s *session) watch() {
	defer close(s.watchDone)
	select {
	case <-s.proc.wait():
	case <-s.ctx.Done():
		s.stop()
	case <-s.loopDone:
		select {
		case <-s.proc.wait():
		case <-s.ctx.Done():
			s.stop()
		}
	}
	<-s.proc.wait()
	// The deadline interrupts a read already waiting; it is set before
	// exited, so that the reader's own deadlines (afterExitReader) and
	// its clearing of them for the pipe's tail always come after it.
	_ = s.stdout.SetReadDeadline(time.Now().Add(s.r.Timeouts.ExitGrace))
	s.exitAt.Store(time.Now().UnixNano())
	s.exited.Store(true)
	s.endLive()
	t := time.NewTimer(s.r.Timeouts.ExitGrace)
	defer t.Stop()
	select {
	case <-s.loopDone:
	case <-t.C:
	}
	// Nobody reads the plugin's stdin any more; a write blocked on a
	// grandchild's copy of it must not hold fledge.
	s.in.abort()
}

// stop sends the plugin the run's cancel, then stops it on schedule.
func (s *session) stop() {
	_ = s.in.send(protocol.Cancel{Type: protocol.TypeCancel, Reason: s.reason()})
	s.r.stop(s.proc, s.req.Kill, s.r.stopSchedule(s.ctx, true))
}

// afterExitReader reads the plugin's stdout. Once the plugin has exited,
// each read may wait at most ExitGrace for data, and all of them together
// at most 8×ExitGrace: a grandchild holding stdout open cannot keep fledge
// waiting. The deadline ends the waiting, not the reading: what the pipe
// holds when it passes is still read (pipeReader), and a pipe whose every
// writer is gone reads to EOF without waiting at all.
type afterExitReader struct {
	s *session
	p pipeReader
}

// stdoutLines reads the protocol lines of s.stdout, through afterExitReader.
func (s *session) stdoutLines() *lineReader {
	return newLineReader(&afterExitReader{s: s, p: pipeReader{f: s.stdout}}, s.r.Limits.Line)
}

func (a *afterExitReader) Read(p []byte) (int, error) {
	s := a.s
	if s.exited.Load() && !a.p.tail {
		g := s.r.Timeouts.ExitGrace
		d := time.Now().Add(g)
		if hard := time.Unix(0, s.exitAt.Load()).Add(8 * g); d.After(hard) {
			d = hard
		}
		_ = s.stdout.SetReadDeadline(d)
	}
	return a.p.Read(p)
}

// finish ends the conversation: it stops a plugin that broke the protocol,
// clears the progress display, flushes output and closes the plugin's stdin.
func (s *session) finish() {
	if s.fatal != nil {
		s.proc.kill()
	}
	s.flush()
	if s.progress != nil {
		s.r.UI.Progress(Progress{Plugin: s.name, Done: true})
		s.progress = nil
	}
	if s.warnings > s.r.Limits.Warnings {
		s.r.UI.Warn(s.name, fmt.Sprintf("%d more malformed lines were skipped", s.warnings-s.r.Limits.Warnings))
	}
	if s.capture != nil && s.capture.dropped > 0 {
		s.r.UI.Warn(s.name, fmt.Sprintf("output exceeded %d bytes; the rest was dropped", s.capture.max))
	}
	s.in.close()
	<-s.proc.wait()
}

// reason is the cancel reason for the run's context.
func (s *session) reason() string {
	if errors.Is(context.Cause(s.ctx), errRunTimeout) {
		return protocol.ReasonTimeout
	}
	return protocol.ReasonUserInterrupt
}

// fail ends the run with a protocol error.
func (s *session) fail(code string, err error) {
	if s.fatal == nil {
		s.fatal = &Error{Code: code, Err: fmt.Errorf("plugin %s: %w", s.name, err)}
	}
}

// maxWarnKeys bounds the distinct warnings remembered (and so shown) in a
// run: a plugin cannot grow fledge's memory by varying its messages.
const maxWarnKeys = 64

// warnOnce shows a warning the first time key is seen.
func (s *session) warnOnce(key, msg string) {
	key = termsafe.Truncate(key, 128)
	if s.warned[key] || len(s.warned) >= maxWarnKeys {
		return
	}
	s.warned[key] = true
	s.r.UI.Warn(s.name, msg)
}

// quote shows a plugin's text inside a warning: one line, at most 80
// characters, with anything a terminal would obey escaped by %q (a key or
// a validator name matters as it is, so nothing is stripped).
func quote(text string) string {
	return fmt.Sprintf("%q", termsafe.Truncate(text, 80))
}

// flush writes buffered output to Stdout.
func (s *session) flush() {
	if s.out != nil {
		_ = s.out.Flush()
	}
}

// cleanCapture returns the captured output without control sequences, with
// a note when it was truncated. Output is rendered text, so sequences are
// stripped rather than shown escaped.
func cleanCapture(c *capBuffer) (string, bool) {
	text := termsafe.Text(c.buf.String())
	if c.dropped > 0 {
		text += fmt.Sprintf("\n[fledge: output truncated: kept the first %d bytes, dropped %d]\n", c.max, c.dropped)
	}
	return text, c.dropped > 0
}

var _ io.Reader = (*afterExitReader)(nil)

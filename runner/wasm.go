package runner

import (
	"context"
	"sync"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
)

// DefaultWasmRun bounds a wasm plugin's run when no --timeout is given, as
// the Rust fledge's 60 s wall clock does.
const DefaultWasmRun = 60 * time.Second

// startWasm stands a wasm instance in for the plugin's process: the engine
// reads and writes its streams exactly as it does a process's pipes.
func (s *session) startWasm() error {
	engine := s.r.Wasm
	run := WasmRun{
		Module:   s.t.Binary,
		CacheDir: s.r.Paths.WasmCacheDir(),
		Args:     append([]string{s.req.Command}, s.req.Args...),
		Stderr:   &syncWriter{w: s.r.Stderr},
		// A message may be as long as a native plugin's line, and what
		// waits for recv counts like a native plugin's unread stdin.
		Line:    s.r.Limits.Line,
		Backlog: s.r.Limits.Backlog,
	}
	project, plugin := engine.Mounts(s.granted.Filesystem)
	if project {
		run.ProjectDir = s.workRoot()
	}
	if plugin {
		run.PluginDir = s.r.Paths.PluginFilesDir(s.t.Entry.Name)
		if err := adoptRustFiles(s.r.Paths.RustPluginFilesDir(s.t.Entry.Name), run.PluginDir); err != nil {
			return errorf(CodeLaunchFailed, "plugin %s: its data directory: %v", s.name, err)
		}
	}
	inst, err := engine.Start(run)
	if err != nil {
		return errorf(CodeLaunchFailed, "plugin %s: %v", s.name, err)
	}
	s.proc = &wasmChild{i: inst, name: s.name, command: s.req.Command}
	s.stdout = inst.Stdout()
	s.lines = s.stdoutLines()
	s.in = newInbox(inst.Stdin(), s.r.Limits.Backlog)
	return nil
}

// workRoot is the directory a wasm plugin sees at /project: the directory
// fledge runs in, where exec commands work by default (as the Rust fledge
// mounts its working directory), but never the home directory or one of
// its ancestors, nor anything inside FLEDGE_HOME. "" when there is none.
func (s *session) workRoot() string {
	c := s.confinement()
	if c.base == c.plugin {
		return ""
	}
	if h := s.r.UserHome; h != "" && manifest.Within(c.base, realOrAbs(h)) {
		return ""
	}
	if manifest.Within(c.state, c.base) {
		return ""
	}
	return c.base
}

// wasmChild is a wasm instance as the session's child.
type wasmChild struct {
	i             WasmInstance
	name, command string
}

func (w *wasmChild) wait() <-chan struct{} { return w.i.Exited() }
func (w *wasmChild) terminate()            { w.i.Stop(false) }

// interrupt does nothing: a wasm plugin has no signals, and the protocol's
// cancel, sent first, is how it learns of a Ctrl+C. terminate follows on
// the same schedule as a native plugin's SIGTERM.
func (w *wasmChild) interrupt() {}
func (w *wasmChild) kill()      { w.i.Stop(true) }

// remains is false: a wasm instance starts no process (its exec commands
// are the session's, stopped with it).
func (w *wasmChild) remains() bool { return false }

func (w *wasmChild) exitCode() (int, bool, bool) {
	select {
	case <-w.i.Exited():
	default:
		return -1, false, false
	}
	code, signaled, _ := w.i.Result()
	return code, signaled, true
}

// failure is how the plugin failed, when it did not simply exit, as the
// engine classed it: a trap or the memory limit is a crash, the compute
// budget a timeout, an unacceptable message malformed_response.
func (w *wasmChild) failure() *Error {
	_, _, f := w.i.Result()
	if f == nil {
		return nil
	}
	return errorf(f.Code, "plugin %s: %s: %s", w.name, w.command, f.Msg)
}

// runClock is a wasm run's wall clock: it fires once after d, not counting
// the time questions wait for a person (each has its own limit).
type runClock struct {
	mu      sync.Mutex
	now     func() time.Time
	left    time.Duration
	started time.Time
	paused  int
	fired   bool
	timer   clockTimer
}

// clockTimer is the part of *time.Timer a runClock uses; tests substitute
// a timer of their own (newRunClock).
type clockTimer interface {
	Stop() bool
	Reset(time.Duration) bool
}

func startRunClock(d time.Duration, fire func()) *runClock {
	return newRunClock(d, fire, time.Now, func(d time.Duration, f func()) clockTimer { return time.AfterFunc(d, f) })
}

// newRunClock is startRunClock with the clock and the timer given.
func newRunClock(d time.Duration, fire func(), now func() time.Time, afterFunc func(time.Duration, func()) clockTimer) *runClock {
	c := &runClock{now: now, left: d, started: now()}
	c.timer = afterFunc(d, func() {
		c.mu.Lock()
		c.fired = true
		c.mu.Unlock()
		fire()
	})
	return c
}

func (c *runClock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == 0 && !c.fired && c.timer.Stop() {
		c.left -= c.now().Sub(c.started)
	}
	c.paused++
}

func (c *runClock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 && !c.fired {
		c.started = c.now()
		c.timer.Reset(max(c.left, 0))
	}
}

func (c *runClock) stop() { c.timer.Stop() }

// clockUI stops a run's clock while a question waits for its answer.
type clockUI struct {
	UI
	c *runClock
}

func (u clockUI) Prompt(ctx context.Context, q Question) (string, error) {
	u.c.pause()
	defer u.c.resume()
	return u.UI.Prompt(ctx, q)
}

func (u clockUI) Confirm(ctx context.Context, q Question, def bool) (bool, error) {
	u.c.pause()
	defer u.c.resume()
	return u.UI.Confirm(ctx, q, def)
}

func (u clockUI) Select(ctx context.Context, q Question, options []string, def int) (int, error) {
	u.c.pause()
	defer u.c.resume()
	return u.UI.Select(ctx, q, options, def)
}

func (u clockUI) MultiSelect(ctx context.Context, q Question, options []string, defaults []int) ([]int, error) {
	u.c.pause()
	defer u.c.resume()
	return u.UI.MultiSelect(ctx, q, options, defaults)
}

// wasmRuntime runs a plugin's wasm module in fledge's sandbox
// (Runner.Wasm), always through the protocol engine and always under a wall
// clock that questions do not use up.
type wasmRuntime struct{}

func (wasmRuntime) timeout(requested time.Duration) time.Duration {
	if requested <= 0 {
		return DefaultWasmRun
	}
	return requested
}

func (wasmRuntime) start(s *session) error { return s.startWasm() }

// run runs a wasm plugin through the protocol engine, under its wall
// clock: --timeout, or DefaultWasmRun.
func (wasmRuntime) run(ctx context.Context, cancel context.CancelCauseFunc, r *Runner, t *Target, req Request, res *Result) error {
	clock := startRunClock(req.Timeout, func() { cancel(errRunTimeout) })
	defer clock.stop()
	rr := *r
	rr.UI = clockUI{UI: r.UI, c: clock}
	if err := rr.runProtocol(ctx, cancel, t, req, res); err != nil {
		return err
	}
	if res.Protocol == "" {
		res.Protocol = protocol.Version
	}
	return nil
}

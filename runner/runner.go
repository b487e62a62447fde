package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/corvidlabs/fledge-go/events"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/settings"
)

// Runner runs installed plugins. Its fields are everything a run touches
// outside the plugin: tests and the command layer set them. The zero values
// of Timeouts and Limits fields mean the defaults.
type Runner struct {
	Paths home.Paths
	// Version is fledge's version, sent to plugins in init.
	Version string
	// UI shows logs, progress and warnings and asks questions.
	UI UI

	// Stdin, Stdout and Stderr are fledge's own streams. Plugins without
	// a protocol inherit them; protocol plugins' output goes to Stdout and
	// their stderr to Stderr.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StdoutTTY says Stdout is a terminal: plugin output is then cleaned
	// of every control sequence except colour (all of them under NoColor).
	StdoutTTY bool
	NoColor   bool
	// Interactive says a human can answer questions. When false, prompts
	// are answered with their defaults, or cancelled.
	Interactive bool
	// Headless says no terminal is shared with the plugin (fledge mcp):
	// no Ctrl+C reaches it but through fledge. Every native plugin then
	// runs in a process group of its own, and a stopped run stops that
	// whole group: a plugin without the protocol gets SIGINT at once, then
	// SIGTERM and SIGKILL on the Ctrl+C schedule, as a protocol plugin
	// does after its cancel (see stop.go).
	Headless bool

	// Environ returns the environment plugins inherit (os.Environ).
	Environ func() []string
	// Getwd returns the working directory (os.Getwd).
	Getwd func() (string, error)
	// UserHome is the user's home directory (os.UserHomeDir), which is
	// never taken as a project root.
	UserHome string
	// Unconfined, when not empty, says who turned kernel confinement off
	// (FLEDGE_CONFINE=off): native plugins then run as before, and every
	// run says so.
	Unconfined string

	Timeouts Timeouts
	Limits   Limits

	// Settings are config.toml and the admin policy in force (nil: no
	// configuration, no policy). The runner enforces what they decide a
	// plugin may do (settings.Settings.Grants): what plugins.toml grants
	// and the policy forbids the plugin's tier is denied when the plugin
	// asks, as an ungranted capability is; a plugin whose source the
	// policy denies does not run.
	Settings *settings.Settings
	// Journal records each run-time policy denial, once per plugin,
	// capability and policy (nil: not recorded).
	Journal *grantlog.Log
	// Events is the event trail every run is recorded in, with Actor as
	// who asked unless the request names another (nil: not recorded;
	// events.go).
	Events *events.Log
	Actor  events.Actor
	// Tentative leaves a run refused before anything of it ran or was
	// said — its command unknown, its plugin missing, disabled or refused
	// by the policy or the confinement it requires, or a wasm plugin with
	// no Wasm engine to run it — unrecorded: no event, no grant log
	// entry. Result.Deferred reports it, for the caller to hand the run to
	// a Runner that is not tentative (and has an engine), which refuses it
	// again and records and reports that, or runs it (cmd/internal/fastrun).
	Tentative bool
	// Seeds are read-only seed directories looked in for a command
	// FLEDGE_HOME does not provide (FLEDGE_SEED_DIR; seed.go).
	Seeds []string
	// Wasm runs wasm plugins' code (runner/wasmengine.Engine). Nil, a
	// wasm plugin's run is refused before it starts, with
	// unsupported_runtime; a Tentative runner defers it.
	Wasm WasmEngine
}

// Timeouts bound the phases of a run.
type Timeouts struct {
	// Prompt is how long a question waits for its answer (5 minutes).
	Prompt time.Duration
	// Interrupt is how long after its cancel a protocol plugin that still
	// runs gets SIGINT (1 s): the signal the terminal's Ctrl+C would have
	// sent it, had it run on its own.
	Interrupt time.Duration
	// Term and Kill are how long after a Ctrl+C the plugin's process
	// group gets SIGTERM (5 s) and SIGKILL (10 s), as the protocol says.
	Term, Kill time.Duration
	// TimeoutTerm and TimeoutKill are the same once Request.Timeout has
	// expired (2 s and 3 s): a run outlives its timeout by at most
	// TimeoutKill.
	TimeoutTerm, TimeoutKill time.Duration
	// ExitGrace is how long fledge keeps reading a plugin's stdout after
	// the plugin exited, for a grandchild that still holds it (250 ms).
	ExitGrace time.Duration
	// ExecDefault and ExecMax bound exec requests (30 s and 300 s).
	ExecDefault, ExecMax time.Duration
	// Git bounds each git command run for the project's git state
	// (gitstate.DefaultTimeout, 10 s); past it the state fails closed.
	Git time.Duration
}

// Limits bound what a plugin can make fledge hold in memory.
type Limits struct {
	// Line is the longest protocol line accepted (1 MiB); a longer one
	// ends the run with malformed_response.
	Line int
	// Capture bounds the output kept for --json (16 MiB).
	Capture int
	// ExecOutput bounds each of an exec command's stdout and stderr
	// (10 MiB) as captured and as JSON-encoded in the response, where a
	// control byte takes six: the rest is drained and dropped, with a
	// note, so a response line stays under twice this.
	ExecOutput int
	// Backlog bounds the responses queued for a plugin that does not read
	// its stdin (8 MiB); beyond it the run ends with malformed_response.
	Backlog int
	// Warnings bounds the warnings about malformed lines (20); the rest
	// are counted.
	Warnings int
}

// Request is one invocation.
type Request struct {
	Command string
	// Plugin, when set, is the installed plugin whose Command runs (the
	// default is the plugin plugins.toml finds first for it).
	Plugin string
	// Args are passed verbatim: on argv, and in init for protocol plugins.
	Args []string
	// NonInteractive forbids questions even on a terminal (--ni); the
	// plugin also sees FLEDGE_NON_INTERACTIVE=1.
	NonInteractive bool
	// Timeout bounds the whole run (0: none); the plugin is then stopped
	// on the TimeoutTerm and TimeoutKill schedule.
	Timeout time.Duration
	// Kill, once closed, ends the run at once: the plugin's process group
	// gets SIGKILL (a second Ctrl+C). Nil never fires.
	Kill <-chan struct{}
	// Capture collects output text into Result.Output instead of writing
	// it to Stdout (--json).
	Capture bool
	// Actor, when set, is who asked for this run (an MCP client), for the
	// event trail; else Runner.Actor.
	Actor *events.Actor
}

// Result describes a run, even a failed one.
type Result struct {
	Command string
	// Plugin is the installed name of the plugin that owns Command ("" if
	// none was found).
	Plugin string
	// Started is true once the plugin's process started.
	Started bool
	// ExitCode is the plugin's exit code, 128+n when signal n killed it;
	// -1 if it never started.
	ExitCode int
	// Signaled is true when a signal ended the plugin.
	Signaled bool
	// Output is the plugin's output text when Request.Capture was set,
	// cleaned of control sequences; OutputTruncated says it hit the cap.
	Output          string
	OutputTruncated bool
	// Denied lists the capabilities the plugin used without a grant;
	// PolicyDenied those of them plugins.toml grants and the admin policy
	// forbids.
	Denied       []manifest.Capability
	PolicyDenied []manifest.Capability
	// Protocol is the protocol spoken ("" for inherited stdio).
	Protocol string
	// Source is where the plugin was installed from (plugins.toml), and
	// Commit the commit installed.
	Source string
	Commit string

	// target is the plugin resolved, for the event trail (nil when none
	// was).
	target *Target
	// deferred: see Deferred.
	deferred bool
}

// Deferred reports whether a Tentative runner refused the run before
// anything of it ran or was said, and recorded nothing of it.
func (r *Result) Deferred() bool { return r.deferred }

// Success reports whether the plugin ran and exited 0.
func (r *Result) Success() bool { return r.Started && r.ExitCode == 0 }

// Defaults.
const (
	DefaultPromptTimeout  = 5 * time.Minute
	DefaultInterruptAfter = 1 * time.Second
	DefaultTermAfter      = 5 * time.Second
	DefaultKillAfter      = 10 * time.Second
	DefaultTimeoutTerm    = 2 * time.Second
	DefaultTimeoutKill    = 3 * time.Second
	DefaultExitGrace      = 250 * time.Millisecond
	DefaultExecTimeout    = 30 * time.Second
	MaxExecTimeout        = 300 * time.Second
	DefaultMaxLine        = 1 << 20
	DefaultMaxCapture     = 16 << 20
	DefaultMaxExecOutput  = 10 << 20
	DefaultMaxBacklog     = 8 << 20
	DefaultMaxWarnings    = 20
)

func (r *Runner) withDefaults() *Runner {
	c := *r
	t := &c.Timeouts
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Prompt, DefaultPromptTimeout)
	def(&t.Interrupt, DefaultInterruptAfter)
	def(&t.Term, DefaultTermAfter)
	def(&t.Kill, DefaultKillAfter)
	def(&t.TimeoutTerm, DefaultTimeoutTerm)
	def(&t.TimeoutKill, DefaultTimeoutKill)
	def(&t.ExitGrace, DefaultExitGrace)
	def(&t.ExecDefault, DefaultExecTimeout)
	def(&t.ExecMax, MaxExecTimeout)
	// Each schedule runs in order: SIGINT, then SIGTERM, then SIGKILL.
	t.Term = max(t.Term, t.Interrupt)
	t.Kill = max(t.Kill, t.Term)
	t.TimeoutTerm = max(t.TimeoutTerm, t.Interrupt)
	t.TimeoutKill = max(t.TimeoutKill, t.TimeoutTerm)
	l := &c.Limits
	defInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	defInt(&l.Line, DefaultMaxLine)
	defInt(&l.Capture, DefaultMaxCapture)
	defInt(&l.ExecOutput, DefaultMaxExecOutput)
	defInt(&l.Backlog, DefaultMaxBacklog)
	defInt(&l.Warnings, DefaultMaxWarnings)
	if c.UI == nil {
		c.UI = NewPlainUI(orDiscard(c.Stderr))
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if c.Environ == nil {
		c.Environ = os.Environ
	}
	if c.Getwd == nil {
		c.Getwd = os.Getwd
	}
	return &c
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// errRunTimeout is the cause of a run's context when Request.Timeout ends it.
var errRunTimeout = errors.New("run timed out")

// Run resolves req.Command, runs it to completion and returns what
// happened. The error is nil when the plugin ran and exited on its own
// (check Result.ExitCode), and an *Error otherwise: the command is unknown,
// the plugin could not start, it broke the protocol, a timeout or an
// interrupt stopped it, a signal killed it, or it failed after being
// denied a capability. Cancelling ctx is Ctrl+C: a protocol plugin gets a
// cancel message, then SIGINT, SIGTERM and SIGKILL on the Timeouts
// schedule (see stop.go); a plugin without the protocol shares fledge's
// terminal and got the Ctrl+C itself, unless the runner is Headless.
// Closing req.Kill kills it (and what it started) at once.
func (r *Runner) Run(ctx context.Context, req Request) (*Result, error) {
	go warmSpawn()
	rr := r.withDefaults()
	start := time.Now()
	res, err := rr.run(ctx, req)
	if res.deferred {
		return res, err
	}
	rr.record(req, res, err, time.Since(start))
	return res, err
}

func (rr *Runner) run(ctx context.Context, req Request) (*Result, error) {
	res := &Result{Command: req.Command, ExitCode: -1}
	t, err := resolveSeeded(rr.Paths, rr.Seeds, req.Plugin, req.Command)
	if t != nil {
		res.Plugin = t.Entry.Name
		res.Source, res.Commit = t.Entry.Source, t.Entry.Commit
		res.target = t
	}
	if err != nil {
		res.deferred = rr.Tentative
		return res, err
	}
	if err := rr.applyPolicy(t); err != nil {
		if rr.Tentative {
			res.deferred = true
			return res, err
		}
		if lerr := rr.logPolicyDenials(t, []string{"source"}); lerr != nil {
			rr.UI.Warn(t.Entry.Name, fmt.Sprintf("the grant log could not record this denial: %v", lerr))
		}
		return res, err
	}
	if err := rr.confinementPolicy(t); err != nil {
		res.deferred = rr.Tentative
		return res, err
	}
	rt, err := rr.runtimeOf(t)
	if err != nil {
		res.deferred = rr.Tentative
		return res, err
	}
	res.Protocol = t.Manifest.Plugin.Protocol

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req.Timeout = rt.timeout(req.Timeout)
	if req.Kill != nil {
		// A kill is an interrupt too, whether or not one came first.
		go func() {
			select {
			case <-req.Kill:
				cancel(context.Canceled)
			case <-runCtx.Done():
			}
		}()
	}
	err = rt.run(runCtx, cancel, rr, t, req, res)
	for _, c := range res.Denied {
		if _, ok := t.policy[c]; ok {
			res.PolicyDenied = append(res.PolicyDenied, c)
		}
	}
	if len(res.PolicyDenied) > 0 {
		items := make([]string, len(res.PolicyDenied))
		for i, c := range res.PolicyDenied {
			items[i] = string(c)
		}
		if lerr := rr.logPolicyDenials(t, items); lerr != nil {
			rr.UI.Warn(t.Entry.Name, fmt.Sprintf("the grant log could not record the policy's denials: %v", lerr))
		}
	}
	return res, rr.classify(runCtx, ctx, t, req, res, err)
}

// warmSpawn has the Go runtime make, on another thread while the run
// resolves its plugin, the check it makes once per process before its
// first spawn: that pidfds work (pidfd_open, waitid, and a vfork'd child
// that exits at once), about 0.12 ms that otherwise lay between resolving
// the plugin and its exec. os.FindProcess asks the same sync.Once that
// os.StartProcess does; the handle it opens is released at once.
var warmSpawn = sync.OnceFunc(func() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Release()
	}
})

// classify turns how a run ended into its error.
func (r *Runner) classify(runCtx, parent context.Context, t *Target, req Request, res *Result, err error) error {
	if err != nil {
		return err
	}
	if !res.Started {
		return nil
	}
	switch {
	case errors.Is(context.Cause(runCtx), errRunTimeout):
		return errorf(CodeTimeout, "plugin %s: %s timed out after %s", t.Entry.Name, req.Command, req.Timeout)
	case runCtx.Err() != nil && (t.Manifest.IsProtocol() || res.Signaled):
		// A plugin without the protocol that handled the Ctrl+C itself
		// and exited (a REPL, a "really quit?") ends as it chose.
		return &Error{Code: CodeInterrupted, Err: fmt.Errorf("plugin %s: %s was interrupted: %w", t.Entry.Name, req.Command, context.Canceled)}
	case res.Signaled:
		return errorf(CodeCrashed, "plugin %s: %s was killed by signal %d", t.Entry.Name, req.Command, res.ExitCode-128)
	case res.ExitCode != 0 && len(res.Denied) > 0:
		return errorf(CodeCapabilityNotAllowed, "plugin %s: %s exited with code %d after being denied %s, which plugins.toml does not grant it",
			t.Entry.Name, req.Command, res.ExitCode, manifest.JoinCapabilities(res.Denied))
	}
	return nil
}

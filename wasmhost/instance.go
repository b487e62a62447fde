package wasmhost

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// Defaults of Limits.
const (
	DefaultMemory  = 256 << 20
	DefaultCompute = 30 * time.Second
	DefaultLine    = 1 << 20
	DefaultBacklog = 8 << 20
	// maxInbound bounds one message fledge sends (an exec result carries
	// up to 10 MiB of stdout and of stderr, JSON-escaped).
	maxInbound = 128 << 20
)

// Limits bound a plugin. Zero fields mean the defaults.
type Limits struct {
	// Memory is the most linear memory the plugin may have (256 MiB).
	Memory uint64
	// Compute is the time its code may run, not counting waits (30 s).
	Compute time.Duration
	// Line is the longest message it may send (1 MiB), as for a native
	// plugin's protocol line.
	Line int
	// Backlog bounds the bytes fledge sent that the host holds for the
	// plugin's next recv (8 MiB); beyond it, the rest waits in the pipe.
	Backlog int
}

func (l Limits) withDefaults() Limits {
	if l.Memory == 0 {
		l.Memory = DefaultMemory
	}
	if l.Compute <= 0 {
		l.Compute = DefaultCompute
	}
	if l.Line <= 0 {
		l.Line = DefaultLine
	}
	if l.Backlog <= 0 {
		l.Backlog = DefaultBacklog
	}
	return l
}

// Config is one run of a module.
type Config struct {
	// Module is the .wasm file's bytes.
	Module []byte
	// CacheDir is wazero's compilation cache ("" for none).
	CacheDir string
	// Args are the WASI argv: the command name and its arguments.
	Args []string
	// ProjectDir, when set, is mounted read-only at /project; PluginDir,
	// when set, read-write at /plugin. See Mounts.
	ProjectDir, PluginDir string
	// Stderr receives the plugin's WASI stderr, cleaned (nil: dropped).
	Stderr io.Writer
	Limits Limits
}

// Mounts maps a filesystem grant to what is mounted, as the Rust fledge
// does: "project" mounts the project read-only; "plugin" also the plugin's
// data directory read-write; anything else nothing.
func Mounts(filesystem string) (project, plugin bool) {
	switch filesystem {
	case "project":
		return true, false
	case "plugin":
		return true, true
	}
	return false, false
}

// FailureKind says which way a plugin failed.
type FailureKind int

// Kinds of Failure.
const (
	// FailTrap: the plugin's code trapped (unreachable, out-of-bounds
	// access, stack overflow) or passed fledge a bad pointer.
	FailTrap FailureKind = iota + 1
	// FailMemory: it failed after its memory reached Limits.Memory.
	FailMemory
	// FailCompute: its code ran longer than Limits.Compute.
	FailCompute
	// FailProtocol: it sent a message fledge cannot accept.
	FailProtocol
	// FailStart: it could not be instantiated.
	FailStart
)

// Failure is how a plugin failed, when it did not simply exit.
type Failure struct {
	Kind FailureKind
	Msg  string
}

func (f *Failure) Error() string { return f.Msg }

// Instance is a running module, standing in for a plugin process: fledge
// writes the plugin's inbound messages to Stdin and reads its outbound ones
// from Stdout, as it does with a process's pipes.
type Instance struct {
	cfg Config
	lim Limits

	stdin, stdout *os.File // fledge's ends
	inR, outW     *os.File // the plugin's ends

	ctx    context.Context
	cancel context.CancelCauseFunc
	rt     wazero.Runtime
	cm     wazero.CompiledModule
	data   []byte // the data section run writes into memory (see compile)
	alloc  *limitedAllocator
	meter  *meter
	out    *outbound
	in     *inbox
	sout   *stdoutWriter
	serr   *stderrWriter
	roots  []*os.Root
	// unhold ends the run's hold on the collector (gc.go).
	unhold func()

	// The plugin's goroutine alone touches these.
	cur   []byte // the rest of the message recv is delivering
	owed  int    // answers the plugin waits for
	nonce string
	seq   int

	mu       sync.Mutex
	stopSig  int
	overTime bool

	exited   chan struct{}
	endOnce  sync.Once
	code     int
	signaled bool
	failure  *Failure
}

// StartFile is Start for the module in the file at path (ReadModule),
// read under the run's collector hold (see runHeadroom): the module, a
// few MB, is a warm run's largest allocation, and read before the hold
// it set off a collection of its own.
func StartFile(path string, cfg Config) (*Instance, error) {
	release := holdGC()
	defer release() // Start holds on for the run
	module, err := ReadModule(path)
	if err != nil {
		return nil, err
	}
	cfg.Module = module
	return Start(cfg)
}

// Start compiles cfg.Module (through the cache), checks it, and starts it
// in its own goroutine. A module fledge cannot run is a *ModuleError.
func Start(cfg Config) (*Instance, error) {
	i := &Instance{cfg: cfg, lim: cfg.Limits.withDefaults(), exited: make(chan struct{}), owed: 1}
	i.ctx, i.cancel = context.WithCancelCause(context.Background())
	i.unhold = holdGC()
	ok := false
	defer func() {
		if !ok {
			i.cleanup()
			i.unhold()
		}
	}()
	rt, cache, err := newRuntime(i.ctx, cfg.CacheDir, cfg.Module)
	if err != nil {
		return nil, err
	}
	i.rt = rt
	if _, err := wasi_snapshot_preview1.Instantiate(i.ctx, i.rt); err != nil {
		return nil, err
	}
	if i.cm, i.data, err = compile(i.ctx, i.rt, cache, cfg.Module, i.lim.Memory); err != nil {
		return nil, err
	}
	if err := cache.bind(); err != nil {
		return nil, err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	i.nonce = "fledge-wasm-" + hex.EncodeToString(b[:]) + "-"
	if err := i.instantiateHost(i.ctx); err != nil {
		return nil, err
	}
	mc, err := i.moduleConfig()
	if err != nil {
		return nil, err
	}
	if i.inR, i.stdin, err = os.Pipe(); err != nil {
		return nil, err
	}
	if i.stdout, i.outW, err = os.Pipe(); err != nil {
		return nil, err
	}
	i.alloc = &limitedAllocator{limit: i.lim.Memory}
	i.meter = newMeter()
	i.out = &outbound{f: i.outW}
	i.sout.out, i.sout.meter = i.out, i.meter
	i.in = newInbox(i.lim.Backlog)
	ok = true
	go i.in.pump(i.inR, maxInbound, i.exited)
	go i.flusher()
	go i.budget()
	go i.run(mc)
	return i, nil
}

// Stdin is the write end of the plugin's inbound stream.
func (i *Instance) Stdin() *os.File { return i.stdin }

// Stdout is the read end of the plugin's outbound stream.
func (i *Instance) Stdout() *os.File { return i.stdout }

// Exited is closed once the plugin has stopped and Stdout is at its end.
func (i *Instance) Exited() <-chan struct{} { return i.exited }

// Result is how the plugin ended, once Exited is closed: its exit code
// (128+15 or 128+9, signaled, when fledge stopped it), and a *Failure when
// it trapped, hit a limit or broke the ABI.
func (i *Instance) Result() (code int, signaled bool, failure *Failure) {
	return i.code, i.signaled, i.failure
}

// Stop ends the plugin: at its next loop iteration or call, and at once if
// it waits on fledge. kill changes the exit code reported (128+9 rather
// than 128+15): a wasm plugin cannot catch either; and a killed plugin
// still in a host call after killGrace is abandoned, so that Exited closes
// whatever the call waits on.
func (i *Instance) Stop(kill bool) {
	i.mu.Lock()
	if i.stopSig == 0 {
		i.stopSig = 15
		if kill {
			i.stopSig = 9
		}
	}
	i.mu.Unlock()
	i.halt(errStopped)
	if kill {
		go i.abandon()
	}
}

// halt stops the plugin's code and unblocks whatever it waits on.
func (i *Instance) halt(cause error) {
	i.cancel(cause)
	_ = i.inR.Close()
	_ = i.outW.Close()
}

func (i *Instance) moduleConfig() (wazero.ModuleConfig, error) {
	i.sout = &stdoutWriter{}
	mc := wazero.NewModuleConfig().
		WithStartFunctions().
		WithArgs(i.cfg.Args...).
		WithStdout(i.sout).
		WithSysWalltime().
		WithSysNanotime().
		WithNanosleep(i.sleep).
		WithRandSource(rand.Reader)
	if i.cfg.Stderr != nil {
		i.serr = &stderrWriter{w: i.cfg.Stderr}
		mc = mc.WithStderr(i.serr)
	}
	fsc := wazero.NewFSConfig()
	if i.cfg.ProjectDir != "" {
		root, err := os.OpenRoot(i.cfg.ProjectDir)
		if err != nil {
			return nil, fmt.Errorf("mount the project at /project: %w", err)
		}
		i.roots = append(i.roots, root)
		fsc = fsc.(sysfs.FSConfig).WithSysFSMount(projectView(root), "/project")
	}
	if i.cfg.PluginDir != "" {
		if fi, err := os.Lstat(i.cfg.PluginDir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("mount %s at /plugin: not a directory", i.cfg.PluginDir)
		}
		root, err := os.OpenRoot(i.cfg.PluginDir)
		if err != nil {
			return nil, fmt.Errorf("mount %s at /plugin: %w", i.cfg.PluginDir, err)
		}
		i.roots = append(i.roots, root)
		fsc = fsc.(sysfs.FSConfig).WithSysFSMount(pluginView(i.cfg.PluginDir, root), "/plugin")
	}
	return mc.WithFSConfig(fsc), nil
}

// sleep is the plugin's nanosleep: a wait, cut short when it is stopped.
func (i *Instance) sleep(ns int64) {
	_ = i.out.flush(i.meter)
	defer i.meter.wait()()
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-i.ctx.Done():
	}
}

// flusher writes pending output while the plugin computes.
func (i *Instance) flusher() {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-i.exited:
			return
		case <-t.C:
			if i.out.pending() {
				_ = i.out.flush(nil)
			}
		}
	}
}

var errCompute = errors.New("compute budget used up")

// budget stops the plugin once its code has run for Limits.Compute.
func (i *Instance) budget() {
	tick := min(max(i.lim.Compute/20, 5*time.Millisecond), 100*time.Millisecond)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-i.exited:
			return
		case <-t.C:
			if i.meter.Used() > i.lim.Compute {
				i.mu.Lock()
				i.overTime = true
				i.mu.Unlock()
				i.halt(errCompute)
				return
			}
		}
	}
}

func (i *Instance) run(mc wazero.ModuleConfig) {
	// The plugin keeps this thread, so its CPU time is the plugin's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	i.meter.onThisThread()
	ctx := experimental.WithMemoryAllocator(i.ctx, i.alloc)
	mod, err := i.rt.InstantiateModule(ctx, i.cm, mc)
	if err == nil {
		err = writeData(mod.Memory(), i.data)
	}
	started := err == nil
	if started {
		_, err = mod.ExportedFunction("_start").Call(ctx)
	}
	i.sout.flush()
	_ = i.out.flush(nil)
	if i.serr != nil {
		i.serr.flush()
	}
	res := i.settle(started, err)
	_ = i.outW.Close()
	_ = i.inR.Close()
	i.cleanup()
	i.end(res)
}

// settle decides how the run ended.
func (i *Instance) settle(started bool, err error) (res result) {
	i.mu.Lock()
	stopSig, overTime := i.stopSig, i.overTime
	i.mu.Unlock()
	var f *Failure
	var exit *sys.ExitError
	switch {
	case stopSig != 0:
		return result{code: 128 + stopSig, signaled: true}
	case overTime:
		res.failure = &Failure{Kind: FailCompute, Msg: fmt.Sprintf("its code ran for more than its compute budget of %s", i.lim.Compute)}
	case errors.As(err, &f):
		res.failure = f
	case err == nil:
		return result{}
	case errors.As(err, &exit):
		c := int32(exit.ExitCode())
		if c < 0 || c > 255 {
			c = 1
		}
		res.code = int(c)
	case !started:
		res.failure = &Failure{Kind: FailStart, Msg: "it could not be started: " + firstLine(err.Error())}
	default:
		res.failure = &Failure{Kind: FailTrap, Msg: "it crashed: " + firstLine(err.Error())}
	}
	if i.alloc.hit.Load() && (res.code != 0 || res.failure != nil && res.failure.Kind == FailTrap) {
		res.failure = &Failure{Kind: FailMemory, Msg: fmt.Sprintf("it ran out of memory: it tried to grow past its limit of %d MiB", i.lim.Memory>>20)}
	}
	if res.failure != nil {
		res.code = 1
	}
	return res
}

// result is how a run ended (see Result).
type result struct {
	code     int
	signaled bool
	failure  *Failure
}

// end records how the run ended and closes Exited, once: when the plugin
// returns, or when it is abandoned (see Stop), whichever comes first.
func (i *Instance) end(res result) {
	i.endOnce.Do(func() {
		i.code, i.signaled, i.failure = res.code, res.signaled, res.failure
		i.unhold()
		close(i.exited)
	})
}

// killGrace is how long a killed plugin has to return before it is
// abandoned.
var killGrace = 3 * time.Second

// abandon ends a killed plugin that did not return within killGrace: its
// goroutine is stuck in a host call that cannot be interrupted (a write to
// a stderr nobody reads, say), and no limit may wait on that. It reports
// as killed; the goroutine finishes, and frees the runtime, if the call
// ever returns.
func (i *Instance) abandon() {
	select {
	case <-i.exited:
	case <-time.After(killGrace):
		i.end(result{code: 128 + 9, signaled: true})
	}
}

func (i *Instance) cleanup() {
	if i.rt != nil {
		_ = i.rt.Close(context.Background())
	}
	for _, r := range i.roots {
		_ = r.Close()
	}
	i.roots = nil
	i.cancel(nil)
}

// Describe says, for audit, what a wasm plugin's own code may touch under a
// filesystem grant.
func Describe(filesystem string) string {
	switch project, plugin := Mounts(filesystem); {
	case plugin:
		return "the project read-only at /project and its own data read-write at /plugin; no network or environment"
	case project:
		return "the project read-only at /project; no network or environment"
	}
	return "no files, no network, no environment"
}

package runner

import (
	"context"
	"time"
)

// A pluginRuntime is how a plugin's code runs: as a native process (native.go)
// or as a wasm module in fledge's sandbox (wasm.go). Run and the protocol
// session reach either through it, and runtimeOf is the one place that
// picks one, so a new runtime is a file and a case.
type pluginRuntime interface {
	// timeout is the run's time limit: the one requested, or the
	// runtime's default when none was (0: no limit).
	timeout(requested time.Duration) time.Duration
	// run runs t to completion under req.Timeout, which it enforces by
	// ending the run with cancel(errRunTimeout).
	run(ctx context.Context, cancel context.CancelCauseFunc, r *Runner, t *Target, req Request, res *Result) error
	// start starts the plugin's code for a protocol session, setting the
	// session's child and streams.
	start(s *session) error
}

// runtimeOf is the runtime t's plugin.toml names. A wasm plugin needs the
// runner's wasm engine (Runner.Wasm): without one, its run is refused
// before anything of it ran, as an unknown command's is, so a Tentative
// runner defers it to one that has an engine.
func (r *Runner) runtimeOf(t *Target) (pluginRuntime, error) {
	if !t.IsWasm() {
		return nativeRuntime{}, nil
	}
	if r.Wasm == nil {
		return nil, errorf(CodeUnsupportedRuntime, "plugin %s: %s runs in the wasm sandbox, and this runner has no wasm engine (Runner.Wasm)",
			t.Entry.Name, t.Command)
	}
	return wasmRuntime{}, nil
}

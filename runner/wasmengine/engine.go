package wasmengine

import (
	"errors"
	"fmt"

	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/wasmhost"
)

// Engine runs wasm plugins in wasmhost's sandbox.
type Engine struct {
	// Limits bound each plugin's own code (zero fields: the run's Line
	// and Backlog, then wasmhost's defaults).
	Limits wasmhost.Limits
}

var _ runner.WasmEngine = Engine{}

// Mounts is wasmhost.Mounts.
func (Engine) Mounts(filesystem string) (project, plugin bool) { return wasmhost.Mounts(filesystem) }

// Start reads and starts run.Module. A module wasmhost cannot run
// (wasmhost.ModuleError) is "<module> cannot run: <why>".
func (e Engine) Start(run runner.WasmRun) (runner.WasmInstance, error) {
	lim := e.Limits
	if lim.Line == 0 {
		lim.Line = run.Line
	}
	if lim.Backlog == 0 {
		lim.Backlog = run.Backlog
	}
	inst, err := wasmhost.StartFile(run.Module, wasmhost.Config{
		CacheDir: run.CacheDir, Args: run.Args,
		ProjectDir: run.ProjectDir, PluginDir: run.PluginDir, Stderr: run.Stderr, Limits: lim,
	})
	if err != nil {
		var me *wasmhost.ModuleError
		if errors.As(err, &me) {
			return nil, fmt.Errorf("%s cannot run: %s", run.Module, me.Msg)
		}
		return nil, err
	}
	return instance{inst}, nil
}

// instance is a wasmhost instance whose Result says the runner's codes.
type instance struct{ *wasmhost.Instance }

func (i instance) Result() (code int, signaled bool, failure *runner.WasmFailure) {
	code, signaled, f := i.Instance.Result()
	if f == nil {
		return code, signaled, nil
	}
	return code, signaled, &runner.WasmFailure{Code: codeOf(f.Kind), Msg: f.Msg}
}

// codeOf is the run's error code for a failure kind: a trap or the
// memory limit is a crash, the compute budget a timeout, an unacceptable
// message malformed_response.
func codeOf(k wasmhost.FailureKind) string {
	switch k {
	case wasmhost.FailCompute:
		return runner.CodeTimeout
	case wasmhost.FailProtocol:
		return runner.CodeMalformedResponse
	case wasmhost.FailStart:
		return runner.CodeLaunchFailed
	}
	return runner.CodeCrashed
}

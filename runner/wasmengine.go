package runner

import (
	"io"
	"os"
)

// A WasmEngine runs the code of a runtime = "wasm" plugin for the runner:
// package runner/wasmengine's Engine (wazero, through package wasmhost) is
// fledge's. The runner decides everything else of the run as it does for
// a native plugin — what the plugin may see, the protocol, its wall clock,
// what its ending means — so the engine is a field (Runner.Wasm) and a
// binary that runs only native plugins (the split fledge, see
// cmd/internal/fastrun) links no wasm runtime.
type WasmEngine interface {
	// Mounts says what a filesystem grant mounts: the project read-only,
	// and with it the plugin's data directory read-write.
	Mounts(filesystem string) (project, plugin bool)
	// Start reads the module at run.Module, compiles it (through the
	// cache) and starts it. Its error completes "plugin NAME: ".
	Start(run WasmRun) (WasmInstance, error)
}

// WasmRun is what the runner gives one run of a wasm plugin.
type WasmRun struct {
	// Module is the .wasm file.
	Module string
	// CacheDir is the compilation cache (home.Paths.WasmCacheDir).
	CacheDir string
	// Args are the plugin's argv: the command name and its arguments.
	Args []string
	// ProjectDir, when set, is mounted read-only at /project; PluginDir,
	// when set, read-write at /plugin (see WasmEngine.Mounts).
	ProjectDir, PluginDir string
	// Stderr receives the plugin's own stderr.
	Stderr io.Writer
	// Line is the longest protocol message the runner accepts, and
	// Backlog what it lets wait for a plugin that does not read: the
	// engine's own bounds, unless it was given others.
	Line, Backlog int
}

// A WasmInstance is a running module standing in for a plugin process:
// the runner writes the plugin's inbound messages to Stdin and reads its
// outbound ones from Stdout, as it does a process's pipes.
type WasmInstance interface {
	Stdin() *os.File
	Stdout() *os.File
	// Exited is closed once the plugin stopped and Stdout is at its end.
	Exited() <-chan struct{}
	// Result is how the plugin ended, once Exited is closed: its exit
	// code (128+15 or 128+9, signaled, when Stop ended it) and, when it
	// did not simply exit, how it failed.
	Result() (code int, signaled bool, failure *WasmFailure)
	// Stop ends the plugin; kill makes its exit code 128+9 (else 128+15)
	// and abandons a host call that does not return.
	Stop(kill bool)
}

// WasmFailure is how a wasm plugin failed when it did not simply exit.
type WasmFailure struct {
	// Code is the run's error code: CodeCrashed for a trap or the memory
	// limit, CodeTimeout for its compute budget, CodeMalformedResponse
	// for a message fledge cannot accept, CodeLaunchFailed when it could
	// not be instantiated.
	Code string
	Msg  string
}

// Package wasmengine is fledge's wasm engine for the runner
// (runner.WasmEngine): package wasmhost's wazero sandbox, in the runner's
// terms.
//
// It owns only the translation: the runner's WasmRun into a wasmhost
// Config (reading the module, the limits), a module wasmhost cannot run
// into the runner's launch error, and wasmhost's failure kinds into the
// runner's error codes. What a run gets and what its ending means stay
// the runner's; compiling, caching and sandboxing stay wasmhost's.
//
// It is a package of its own so that the runner does not link wazero: a
// binary that runs only native plugins (the split fledge,
// cmd/internal/fastrun) leaves Runner.Wasm nil and hands a wasm plugin's
// run to the command line, whose runners are given Engine.
package wasmengine

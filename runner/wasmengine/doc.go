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
// binary that runs only native plugins leaves Runner.Wasm nil, and a
// tentative runner (cmd/internal/fastrun's) then hands a wasm plugin's run
// to the command line. Every fledge binary gives its runners Engine: the
// split fledge too, where handing the run to fledge-core cost it that
// start (a Rust-built module's run took twice as long) and wazero's
// package initialisation costs each start 0.28 ms.
package wasmengine

// Package protocol defines the fledge-v1 wire types: the messages fledge
// sends a plugin on its stdin (init, response, cancel) and the messages a
// plugin writes on its stdout (output, log, progress, prompt, confirm,
// select, multi_select, store, load, exec, metadata).
//
// Each message is one JSON object on one line. The host (package runner), the
// wasm sandbox (package wasmhost) and the plugin-author SDK (package
// pluginsdk) all import these types, so they cannot drift apart. It sits at
// the top of the module, not under runner, so that neither the SDK nor the
// wasm host depends on a runner package. It depends only on the standard
// library.
//
// It does not own: spawning plugins or enforcing grants (package runner), or
// the SDK's helpers for plugin authors (package pluginsdk).
package protocol

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
// # The codec
//
// Encode is encoding/json with HTML escaping off, and every other encoder
// writes exactly what it would. The messages a plugin floods fledge with,
// and the answers fledge sends, are read and written without reflection:
// Decode reads flat messages (decodeFlat) and AppendOutputText output lines
// by hand, falling back to encoding/json for anything they are not sure of;
// AppendOutput, AppendResponse and AppendCancel write their lines by hand.
// Each is fuzzed against encoding/json (FuzzDecodeFlat, FuzzOutputText,
// FuzzAppendResponse, FuzzAppendOutput). It is the only hand-written JSON
// in the module: the runner, the wasm host and the SDK use it from here.
//
// It earns its place end to end (bench/compare.sh against e2f8fee, the
// same tree with encoding/json in every one of these places; medians of
// alternating runs, wall-clock and the CPU time of fledge and its plugin,
// on a 2-core machine under heavy load):
//
//	fledge <command>, 1M output messages (64 B)     10.7x wall, 10.4x CPU with encoding/json
//	the same from a pluginsdk plugin, native         3.2x wall,  2.9x CPU
//	the same in the wasm sandbox (100k messages)     5.5x wall,  4.3x CPU
//	MCP tools/call whose plugin prints 100k          1.0x wall,  1.9x CPU
//	the same from a pluginsdk plugin                 1.2x wall,  1.6x CPU
//
// A flood is not bound by the pipe: fledge streams 1M messages in about
// 150 ms with the codec and 1.6 s with encoding/json. Measure again with
// bench/compare.sh e2f8fee; delete the codec when the gain falls below 20%.
// The micro-benchmarks (go test ./protocol -bench .) run both decoders.
//
// It does not own: spawning plugins or enforcing grants (package runner), or
// the SDK's helpers for plugin authors (package pluginsdk).
package protocol

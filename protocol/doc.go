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
// (AppendOutputTexts a buffer of them at once) by hand, falling back to
// encoding/json for anything they are not sure of;
// AppendOutput, AppendResponse and AppendCancel write their lines by hand.
// Each is fuzzed against encoding/json (FuzzDecodeFlat, FuzzOutputText,
// FuzzAppendResponse, FuzzAppendOutput; FuzzOutputTexts holds
// AppendOutputTexts to AppendOutputText line by line). It is the only
// hand-written JSON in the module: the runner, the wasm host and the SDK
// use it from here.
//
// Strings are scanned for the bytes that end a plain run (a quote, a
// backslash, a control character, non-ASCII) sixteen at a time on amd64,
// with SSE2, which every amd64 processor has (plain_amd64.s, the module's
// only assembly), and eight at a time in a word elsewhere. On a flood's
// lines, with texts that are plain or end in one line feed copied in one
// piece, it halves the decoder's time: BenchmarkOutputTexts, CPU time per
// 64-byte text on the shared 2-core machine, 29.5 ns with words, 14.6 ns
// now; 32-byte AVX2 blocks measured no faster. TestSkipPlain holds both
// scans to plain() at every position, start and length; the fuzz targets
// above run through them.
//
// It earns its place end to end. bench/compare.sh e2f8fee sets this tree
// against e2f8fee, the same code with encoding/json in every one of these
// places (byte-exact on the wire), the two run alternately, 11 runs each,
// medians of wall-clock time and of the CPU time of fledge and its plugin,
// on a 2-core VM under heavy load (load average 15-37): encoding/json's
// time over the codec's, and in parentheses the first run, which held the
// codec as it was before it moved here (in package runner) to the same
// encoding/json tree.
//
//	                                                wall          CPU
//	fledge <command>, 1M output messages (64 B)    10.5x (10.7x)  9.4x (10.4x)
//	the same from a pluginsdk plugin, native        2.9x  (3.2x)  2.8x  (2.9x)
//	the same in the wasm sandbox, 100k messages     4.9x  (5.5x)  4.3x  (4.3x)
//	MCP tools/call whose plugin prints 100k         1.5x  (1.0x)  1.9x  (1.9x)
//	the same from a pluginsdk plugin                1.3x  (1.2x)  1.6x  (1.6x)
//
// A flood is not bound by the pipe: fledge streams 1M messages in 186 ms
// with the codec, 1958 ms with encoding/json. Measure again with
// bench/compare.sh e2f8fee, and delete the codec when encoding/json comes
// within 20% end to end (encoding/json/v2 still needs GOEXPERIMENT=jsonv2
// in Go 1.26, so it is not the yardstick yet). The micro-benchmarks (go test ./protocol -bench .)
// run both decoders on one line.
//
// It does not own: spawning plugins or enforcing grants (package runner), or
// the SDK's helpers for plugin authors (package pluginsdk).
package protocol

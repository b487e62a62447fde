// Package bench measures the fledge binary end to end against physical
// baselines measured in the same run: start-up against a trivial Go
// program, install against git clone --depth 1, `fledge <command>` against
// exec'ing the plugin directly and, inside a 5,000-file git project,
// against running outside one and against `git status --porcelain`, peak
// memory while a plugin streams, and update of many plugins against one.
// bench/all.sh prints the ratios. bench/compare.sh REV sets this tree
// against another revision on the message paths (streaming output through
// fledge <command> from a plain plugin and from pluginsdk, native and in
// wasm, and an MCP tools/call), the two run alternately: how protocol's
// codec was held to encoding/json (see protocol's doc). bench/wasm.sh
// [REV] sets a wasm plugin's start-up against the same code native, its
// first run against its warm one, and each against REV's fledge, in one
// set of rounds.
//
// The benchmarks build only with -tags bench:
//
//	go test -tags bench -run '^$' -bench . ./bench/
//
// They have no tests, and without the tag go test ./... does not link a
// test binary for them (1.7 CPU-seconds of every run, for nothing to run).
package bench

// Package cli is fledge's command-line interface: the cobra command tree,
// the IO streams with their terminal detection, the huh-backed prompter,
// JSON and table output, and the mapping from errors to exit codes.
//
// Commands are thin: each parses its flags into an options struct and calls
// into install, runner, registry, publish, project, manifest, lockfile,
// catalog or mcpserver (`plugins tools` and `mcp`; the fledge_nomcp build
// tag leaves those two out, for the benchmark of what they cost start-up).
// Every --json document is a superset of the Rust fledge 1.7.2's for the
// same command (rust_json_test.go checks each against Rust's, field by
// field), and the command tree accepts what Rust users type (plugin,
// --json before the subcommand, a global --ni, completions). Nothing outside cmd
// imports this package, and cobra and huh are used nowhere else.
//
// Main catches Ctrl+C (fastrun.Interrupts): the first cancels the
// command's context, the second kills a running plugin at once. A plugin
// command run off a terminal is usually not this package's at all:
// cmd/fledge hands it to fastrun, which wires the runner the way
// newRunner does (fastrun.NewRunner is both's) and hands back what it
// cannot finish silently (ReportRun). Every answered
// question leaves one line on the terminal (printAnswered).
//
// Presentation lives here too: help for installed plugin commands and
// "did you mean" (help.go), shell completion answered from the command
// index (completion.go), colour decided once per stream (IOStreams,
// style.go), the fetch spinner (fetchprogress.go), and the hint that goes
// with each library error (codes.go).
package cli

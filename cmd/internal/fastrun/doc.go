// Package fastrun is `fledge <command>` for scripts and agents: a plugin
// command run with no terminal on stdin, stdout or stderr, wired the way
// the command line wires every run (NewRunner, the one wiring), without
// building fledge's command tree and without linking it.
//
// Start-up is most of what fledge adds to a plugin's run, and most of
// start-up is the initialisation and page faults of the libraries linked
// for other commands (git, OCI, MCP, the terminal forms): `fledge
// --version` costs three and a half process starts of a trivial Go program
// when they are linked, and under one and a half without them. So fastrun
// imports only what a run needs, and the `fledge_split` build (release
// builds) makes cmd/fledge fastrun alone, with the rest of fledge in
// fledge-core beside it. That includes the wasm runtime (wazero: linked,
// it cost every native plugin's run 0.86 ms, its package initialisation
// and the pages it touches; a wasm run handed over pays fledge-core's
// start, about 5 ms, and 60 of the 66 published plugins are native): the split
// fledge's runner has no wasm engine (Core.Wasm is nil), so a wasm
// plugin's run is refused before it begins, deferred, and fledge-core runs
// it, as it would a run that must ask on a terminal.
//
// fastrun never answers differently from the command line: it takes a run
// only when it can finish it saying nothing of its own but what the
// runner says, and hands everything else to Core, the rest of fledge —
// before anything happened (a terminal, a run refused before it began: the
// runner is Tentative, so nothing of it was recorded), or after the run
// (an error to report, with its hint). In the ordinary build Core is the
// command line in the same process; in the split build it is fledge-core,
// exec'd in fledge's place (cmd/fledge's core_exec.go), the outcome
// carried across by EncodeOutcome.
//
// fastrun also answers `fledge plugins list --json` when the command line
// has stored the document for the inputs as they are now (ListKey, the
// command line's key too), under the identity of the binary that rendered
// it (Core.Binary): the listing scripts and agents repeat. --json output,
// and the error document of a failed --json command, are this package's
// (RenderJSON, FailJSON), so a listing whose stdout fails ends as the
// command line's does.
package fastrun

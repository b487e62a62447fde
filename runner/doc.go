// Package runner runs an installed plugin's command and, for plugins that
// declare protocol = "fledge-v1", speaks the protocol with it while
// enforcing exactly the capabilities recorded in plugins.toml.
//
// It owns: resolving a command to its plugin (through the lockfile only,
// never PATH or a name prefix), checking at run time that the binary stays
// inside the plugin's real tree and is built for this platform, spawning
// it (inherited stdio, or NDJSON pipes; a runtime = "wasm" plugin is an
// instance of the wasm engine the runner is given (Runner.Wasm, a
// WasmEngine: runner/wasmengine's, wazero through wasmhost, so that a
// binary running only native plugins links no wasm runtime) standing in
// for the process, behind the same protocol engine, its wall clock stopped while a
// question waits; the two runtimes are one interface, picked in
// runtime.go), the message loop with
// its limits and timeouts, the use of the plugin's key/value store (package
// kvstore keeps it), confined exec, project metadata (the git state is
// package project/gitstate's answer) and the environment filter.
// Separately, it finds
// and runs fledge-<name> programs on PATH (FindExternal, RunExternal), which
// the command layer falls back to when no plugin provides a command: they
// are not plugins and get no protocol and no grants.
//
// It does not own: installing or granting (package install), the wire types
// (package protocol, shared with the plugin SDK and the wasm host), or drawing on a terminal.
// Everything that shows or asks something goes through the UI interface,
// output goes to the writers in Runner, and timeouts and limits are fields,
// so the command layer decides how a run looks and tests substitute all of
// it. runner never imports install or cmd.
//
// # Guarantees
//
//   - Every request a plugin sends with a string or numeric id gets exactly
//     one response or cancel, its id echoed byte for byte. Requests fledge
//     cannot understand are cancelled with reason invalid_request rather
//     than left unanswered; a request without an id is warned about and
//     skipped; unknown message types are ignored.
//   - Grants come from plugins.toml alone, narrowed by the admin policy
//     (Runner.Settings): a recorded grant the policy now forbids is denied
//     like one never granted, and a plugin whose source it denies does not
//     run. Denied exec answers code 126, denied store is dropped and load
//     answers null, denied metadata answers {}; each denial is reported
//     once, and a policy denial is written to the grant log once per
//     plugin, capability and policy.
//   - Memory stays bounded whatever a plugin writes: protocol lines (1 MiB,
//     beyond which the run ends with malformed_response), exec output
//     (10 MiB per stream, counted as JSON-encoded in the response, so
//     10 MiB of NUL bytes keeps 1.7 MiB and the line stays near 20 MiB
//     rather than 126 MB), the --json capture (16 MiB), responses queued
//     for a plugin that does not read them (8 MiB), warnings (20).
//   - A run always ends. On Ctrl+C a protocol plugin (in a process group
//     of its own, so the terminal's Ctrl+C reaches fledge alone) gets a
//     cancel at once, then its process group gets SIGINT 1 s later (what
//     the terminal would have sent it), SIGTERM at 5 s and SIGKILL at 10 s,
//     each only if it still runs. A plugin without the protocol shares
//     fledge's terminal and process group: it gets the Ctrl+C itself and
//     fledge sends it nothing more. A second Ctrl+C (Request.Kill) sends
//     SIGKILL at once. A --timeout D sends the cancel at D (SIGINT at once
//     to a plugin without the protocol), SIGINT at D+1 s, SIGTERM at D+2 s
//     and SIGKILL at D+3 s: the run ends by D+3 s. A question waits at most
//     5 minutes; once the plugin exits, a grandchild holding its stdout
//     open is given at most a short grace. The grace bounds waiting, not
//     reading: everything the plugin wrote before it exited is read, to
//     the last byte, on stdout and stderr alike (pipeReader).
//   - Headless (fledge mcp: no terminal), every native plugin runs in a
//     process group of its own and one without the protocol is stopped as
//     a protocol plugin is, with SIGINT at once in place of the cancel. A
//     plugin in a group of its own is stopped whole: when its leader exits
//     while what it started still runs in the group, the schedule goes on
//     for them.
//
// # Decisions where the protocol is silent
//
//   - Without a terminal (or under --ni) a question is answered with its
//     default; a question without one, or whose default fails its
//     validator, is cancelled with reason non_interactive. On a terminal a
//     default is a placeholder (Enter takes it, typing replaces it) and
//     options are shown escaped; the plugin always gets back its own
//     default or option, byte for byte.
//   - A native plugin's own process gets the base environment and the
//     variables it is granted (confine.Environment; the table is in
//     package confine's doc), or fledge's whole environment where
//     confinement is turned off for it; a withheld variable it may have
//     wanted is named in one note with the grant command (pluginEnv).
//   - The environment a plugin receives through fledge (metadata "env",
//     and exec's commands) is the user's, passed through one filter,
//     confine.FilterEnv, whose tables are in confine/envfilter.go. It
//     fails closed: a name with a secret word or part
//     (TOKEN, SECRET, PASSW, KEY, PW, PIN, WEBHOOK, …, every *_URL) or a
//     value with a provider token format, a credential in a URL or a
//     webhook URL, a secret-named parameter, JSON or base64 JSON with a
//     secret key, or the shape user:password is dropped. A secret-scanning
//     library (gitleaks) was weighed: 200 modules, and it misses secrets
//     that only a name gives away.
//   - init.project is the directory fledge runs in, as the Rust fledge
//     sends it (package project names it and its languages), with the git
//     state of the repository holding it (package project/gitstate: git's
//     own answer, dirty with a warning when git cannot give one); git is
//     null outside a repository, and for a repository whose work tree is
//     the user's home or above it (a dotfiles repository is not the
//     project's).
//   - exec runs `sh -c` (cmd /C on Windows) with stdin closed, in its own
//     process group, with the filtered environment (confine.FilterEnv). Its
//     default working directory is the directory fledge runs in, and a
//     relative cwd is relative to it, as in Rust. The directory must lie,
//     after resolving symlinks, in that directory, in the top level of its
//     git work tree (not a dotfiles one), or in the plugin's directory;
//     nothing in FLEDGE_HOME but the plugin's own directory is allowed
//     (see confinement).
//   - The store is a JSON object of strings at home.Paths.StoreFile, beside
//     the plugin's tree. A null value deletes a key; a corrupt file is moved
//     aside to store.json.corrupt rather than silently replaced. A plugin
//     the Rust fledge installed has its data taken over from state.json in
//     its tree on first use (see package kvstore).
//
// # The message codec
//
// Lines are decoded and answers encoded by package protocol's codec
// (protocol.Decode, AppendOutputText, AppendResponse, AppendCancel; off a
// terminal the output messages already read are decoded a buffer at a time
// by AppendOutputTexts and written in one piece), which
// reads and writes the common messages without reflection and is fuzzed
// against encoding/json; the measurement that keeps it is in protocol's
// doc.
package runner

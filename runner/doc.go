// Package runner runs an installed plugin's command and, for plugins that
// declare protocol = "fledge-v1", speaks the protocol with it while
// enforcing exactly the capabilities recorded in plugins.toml.
//
// It owns: resolving a command to its plugin (through the lockfile only,
// never PATH or a name prefix), checking at run time that the binary stays
// inside the plugin's real tree, spawning it (inherited stdio, or NDJSON
// pipes; a runtime = "wasm" plugin is a wasmhost instance standing in for
// the process, behind the same engine, its wall clock stopped while a
// question waits), the message loop with its limits and timeouts, the plugin's
// key/value store, confined exec, project metadata (read with go-git, never
// by running git) and the environment filter.
//
// It does not own: installing or granting (package install), the wire types
// (runner/protocol, shared with the plugin SDK), or drawing on a terminal.
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
//   - Grants come from plugins.toml alone. Denied exec answers code 126,
//     denied store is dropped and load answers null, denied metadata
//     answers {}; each denial is reported once.
//   - Memory stays bounded whatever a plugin writes: protocol lines (1 MiB,
//     beyond which the run ends with malformed_response), exec output
//     (10 MiB per stream), the --json capture (16 MiB), responses queued
//     for a plugin that does not read them (8 MiB), warnings (20).
//   - A run always ends: on Ctrl+C or a --timeout the plugin gets a cancel,
//     its process group SIGTERM 5 s later and SIGKILL at 10 s; a question
//     waits at most 5 minutes; once the plugin exits, a grandchild holding
//     its stdout open is given at most a short grace.
//
// # Decisions where the protocol is silent
//
//   - Without a terminal (or under --ni) a question is answered with its
//     default; a question without one, or whose default fails its
//     validator, is cancelled with reason non_interactive.
//   - exec runs `sh -c` (cmd /C on Windows) with stdin closed, in its own
//     process group, with the filtered environment (see FilterEnv). Its
//     working directory must lie, after resolving symlinks, in the project
//     root or the plugin's directory; outside a project the working
//     directory counts in the project's place unless it is the filesystem
//     root, the user's home or an ancestor of it, or inside FLEDGE_HOME.
//     Nothing in FLEDGE_HOME but the plugin's own directory is allowed.
//   - A project is the nearest directory, from the working directory up,
//     holding fledge.toml or .git (else a language manifest such as go.mod),
//     never the user's home or the filesystem root.
//   - The store is a JSON object of strings at home.Paths.StoreFile, beside
//     the plugin's tree. A null value deletes a key; a corrupt file is moved
//     aside to store.json.corrupt rather than silently replaced.
package runner

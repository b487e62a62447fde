// Package runner runs an installed plugin's command and, for plugins that
// declare protocol = "fledge-v1", speaks the protocol with it while
// enforcing exactly the capabilities recorded in plugins.toml.
//
// It owns: resolving a command to its plugin (through the lockfile only,
// never PATH), checking at run time that the binary stays inside the
// plugin's tree, spawning it (inherited stdio, or NDJSON pipes), the
// message loop with its limits and timeouts, the plugin's key/value store,
// confined exec, project metadata (read with go-git, never by shelling out
// to git) and the environment filter.
//
// It does not own: installing or granting (package install), the wire types
// (runner/protocol, shared with the plugin SDK), or drawing on a terminal.
// Everything that shows or asks something goes through the UI interface,
// output goes to the writers in Runner, and timeouts are fields, so the
// command layer (cmd) decides how a run looks and tests substitute all of
// it. runner never imports install or cmd.
//
// Guarantees a caller can rely on: every request a plugin sends gets
// exactly one response or cancel; memory stays bounded whatever a plugin
// writes (lines, output, exec output and the --json capture are capped);
// and a run always ends, even when the plugin stops reading its stdin or a
// grandchild keeps its stdout open.
package runner

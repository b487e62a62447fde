// Package catalog presents every installed plugin command as a typed tool,
// for agents: the shape `fledge plugins tools` prints and `fledge mcp`
// serves.
//
// It owns: reading plugins.toml (and a plugin's installed plugin.toml where
// the record cannot say enough),
// naming each tool, resolving name collisions between plugins, building
// each tool's input JSON Schema from the command's typed args, and turning
// a call's arguments into the command's argv.
//
// It does not own: a plugin's tier or effective grants (package settings
// decides them, from config.toml and the admin policy, and every surface
// shows its answer), running anything (package runner, which enforces
// the same grants), or how a catalog is shown or served (cmd, mcpserver).
//
// # Decisions
//
//   - What a tool declares comes from what was approved: the command
//     details recorded in plugins.toml at install, for a live link too. A
//     live link's plugin.toml edited since it was linked is listed in
//     Edited (the CLI and the server say so, with the command that offers
//     the edit: installing the directory again, which asks again) and
//     changes no tool, so an agent never sees a description, schema or
//     flag nobody approved, and tools/list_changed never fires for one.
//     Only a record with no details (the Rust fledge wrote none) reads
//     the installed plugin.toml, and only while it is the one approved
//     (lockfile.Plugin.ApprovedManifest). An edit never makes a command
//     recorded as dangerous safe. Only the commands plugins.toml records
//     are tools: they are what the runner will run.
//   - Names: a command's own name when no other plugin provides it (command
//     names are already valid MCP tool names: letters, digits, '-', '_' and
//     '.', at most 100 characters). A command two plugins provide (possible
//     only in a plugins.toml fledge did not write: install refuses it) is
//     named <plugin-short>.<command> for every provider, or
//     <plugin>.<command> when that is taken too; a name still taken, or
//     longer than 128 characters, ends in a hash of the plugin and command.
//     The outcome depends only on the set of installed commands, never on
//     their order, and every collision is reported.
//   - Schemas: an object with one property per declared arg, in declaration
//     order (which is the argv order), typed string, integer, number or
//     boolean (any other declared type is taken as a string, and says so),
//     the required ones listed, and no other properties. A command that
//     declares no args takes one optional property, "args", an array of
//     strings passed verbatim.
//   - argv: each given arg in declaration order, stringified (seeds/003):
//     a string as is, an integer in plain decimal, a number as the literal
//     the caller sent, a boolean as true or false. An optional arg left out
//     before one that is given holds its place as an empty string, since
//     plugins read args by position; trailing ones are left off. Arguments
//     that do not match the schema are refused before anything runs, as is
//     a value holding a NUL byte, which argv cannot carry.
//   - Offered: a tool the admin policy's [tools] rules keep from agents
//     (policy.Set.OffersTool, matched against Tool.Names) is not in the
//     catalog; it is listed in Skipped with the rule. Names are given
//     before, so what the policy leaves out never renames another tool.
//   - Disabled: a disabled plugin (fledge plugins disable) offers no
//     tool; its commands are listed in Skipped with who disabled it.
//   - ReadOnly, the MCP readOnlyHint, is claimed only for a command that is
//     not dangerous, of a plugin that speaks the protocol, is not granted
//     exec and has no approved hooks: nothing fledge does for it changes
//     anything outside its own store. It is a hint, as MCP says; the hint
//     an agent is given (Hints) also needs the plugin's own code held to
//     it: the wasm sandbox, or the kernel's confinement of a native plugin
//     that declares a filesystem scope (Tool.Confinement; see package
//     confine). A plugin without the protocol has no grants in between at
//     all, so it is never read-only.
package catalog

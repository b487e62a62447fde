// Package settings reads what fledge is told by the people it works for —
// config.toml and the admin policy — once, and answers from them the one
// question every surface asks: what may this plugin do, here, now. Its
// tier (config.toml's trust narrowed by the policy's [trust] owners) and
// its effective grants (what plugins.toml records, narrowed by the
// policy's limits for that tier) are computed here alone; list, info,
// audit, tools, help, the MCP server and the runner all ask a *Settings,
// so they cannot disagree.
//
// It owns: loading config.toml and the policy's layers (package policy
// decides what each rule means), the effective trust configuration with
// the owners the policy dropped, the tier of an installed record, a
// record's effective grants, and the trusted-signers files in force
// (AllowedSigners: config.toml's [provenance] and the policy's).
//
// It does not own: what a tier is or how a URL earns one (package trust),
// what a policy rule allows (package policy), enforcing grants (the
// runner does, from this package's answer), asking or telling anyone
// anything (cmd words the notes it returns), or changing grants (install).
//
// It sits below install, runner, catalog and mcpserver and imports none of
// them; it does not import registry, so the runner stays free of the HTTP
// stack.
package settings

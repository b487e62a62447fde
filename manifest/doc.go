// Package manifest reads and validates plugin.toml, a plugin's manifest, and
// defines the Capabilities a plugin may request and be granted.
//
// It reads every field the Rust fledge reads, tolerates unknown keys (reported
// as warnings), and validates names, versions, protocol and binary paths with
// messages that name the field and the fix. Hooks and binary paths, which
// run, must be showable byte-exact: anything termsafe would alter makes them
// invalid. It is a leaf (termsafe, itself a leaf, is its one fledge import):
// it knows nothing of installed state (lockfile), fetching (install) or
// running (runner).
package manifest

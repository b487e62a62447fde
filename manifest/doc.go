// Package manifest reads and validates plugin.toml, a plugin's manifest, and
// defines the Capabilities a plugin may request and be granted.
//
// It reads every field the Rust fledge reads, tolerates unknown keys (reported
// as warnings), and validates names, versions, protocol and binary paths with
// messages that name the field and the fix. It is a leaf: it knows nothing of
// installed state (lockfile), fetching (install) or running (runner).
package manifest

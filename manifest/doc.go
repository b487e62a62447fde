// Package manifest reads and validates plugin.toml, a plugin's manifest, and
// defines the Capabilities a plugin may request and be granted.
//
// Table is the one list of capabilities: each one's name (its plugin.toml
// key, grant name and JSON key), what granting it means, whether it takes a
// scope and which scopes are known, whether an unverified source gets it
// only by name, and whether it lets a plugin change things beyond its data.
// The approval form, audit, info, completion, the catalog, policy and the
// grant log iterate it; a new capability is a field of Capabilities, a row,
// and the code that enforces it.
//
// It reads every field the Rust fledge reads, tolerates unknown keys (reported
// as warnings), and validates names, versions, protocol and binary paths with
// messages that name the field and the fix. Hooks and binary paths, which
// run, must be showable byte-exact: anything termsafe would alter makes them
// invalid. It is a leaf (termsafe, itself a leaf, is its one fledge import):
// it knows nothing of installed state (lockfile), fetching (install) or
// running (runner).
//
// Reading is linear in the manifest's size: one pass with go-toml's parser
// counts the keys (at most MaxKeys, since go-toml's decoder is quadratic in
// them) and finds the unknown ones against the Manifest type, then go-toml
// decodes. Decode, the runner's path, skips the unknown-key report.
package manifest

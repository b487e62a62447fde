// Package grantlog keeps FLEDGE_HOME/grants.log: one JSON line for every
// change to what an installed plugin is granted — install, update, sync,
// grant, revoke, remove, and a run-time denial by the admin policy — saying
// when, who (user and uid), what, the plugin, its source, commit and tree
// hash, the capabilities and hooks granted or removed, how consent was
// given (the approval form, --yes, --grant, a sync proposal, an update's
// carry-over, the policy), and when who signed the revision changed (or
// was first recorded), the signer before and after and how a lower level
// or another signer was accepted (--accept-provenance and its reason, or
// a terminal).
//
// # Tamper evidence
//
// Each record carries its sequence number, the hash of the record before it
// (prev) and its own hash: SHA-256 over prev and its canonical encoding (the
// exact bytes encoding/json writes for it with hash empty). plugins.toml
// carries an anchor ([grant_log]: the last record's number, hash and the
// log's length up to it), written in the same atomic rename as the change
// the record describes. Verify therefore notices any edited byte (the
// record no longer matches its hash, or is not byte for byte what fledge
// writes), a removed record (a gap in the numbers, or a log shorter than the
// anchor), a reordered one (a number out of turn) and a replaced one (a
// record that chains to something else), and says which. It is evidence,
// not prevention: whoever can write FLEDGE_HOME can rewrite the log and the
// anchor together, as they can rewrite plugins.toml.
//
// # Transactions
//
// Append runs inside lockfile.Store.Transact: under plugins.toml's lock,
// after the change and before plugins.toml is renamed into place. It writes
// and syncs the record first, then the new plugins.toml (with the new
// anchor) replaces the old. A crash between the two leaves a record past
// the anchor: it describes a change that never landed, readers do not show
// it, and the next Append (under the lock) truncates the log back to the
// anchor. A crash before the record is synced leaves at most a partial line
// past the anchor, treated the same way. When plugins.toml has no anchor
// (it is new, or another program such as the Rust fledge rewrote it), the
// last record is undone only if plugins.toml is still exactly the file it
// was written against (its state_before digest); otherwise the log is kept
// and the next record notes that its end could not be checked.
//
// Concurrent writers serialise on plugins.toml's lock, so records never
// interleave or get lost.
//
// # Growth
//
// Records are written only for changes people make, and for run-time
// policy denials once per plugin, capability and policy content (the
// runner keeps which it logged beside the plugin's data), so the log grows
// with administration, not with use.
package grantlog

// Package lockfile reads and writes plugins.toml, the record of every
// installed plugin: where it came from, the exact revision, a content hash of
// the installed tree, and what the user granted.
//
// Writes are atomic (temp file, fsync, rename) and every read-modify-write
// runs under a cross-process lock on a side file, re-reading inside the lock,
// so concurrent fledge processes never lose an entry and readers never see
// half a file. Store.Transact lets the grant log append its record under
// the same lock, before the new file lands, and plugins.toml carries the
// log's anchor ([grant_log]). It reads files written by the Rust fledge. It does not decide
// what to grant (install does) or enforce grants (runner does).
//
// Kinds is the table of what sets each kind of record apart (local, live,
// the install flag that makes it); callers ask a record's KindInfo instead
// of comparing its Kind.
package lockfile

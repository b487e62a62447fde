// Package gitfetch fetches plugin repositories with go-git: listing a
// remote's refs without cloning, and checking out one exact revision (a tag,
// a branch head or a commit) into a directory: its head alone, or with the
// branch's history when an update must tell a fast-forward from a
// force-push (CheckoutFrom). It never runs the git binary: a ref listing
// of a file:// remote is served in-process, a checkout from one (or from a
// plain path) reads its objects in place, with no pack built or copied,
// and submodules are never fetched.
//
// Every network operation has an idle deadline (Options.IdleTimeout): a
// server that keeps fledge waiting that long without sending a byte ends it
// with a *TimeoutError, over every transport, while a slow transfer that
// keeps moving runs to the end (a local checkout has no server to wait
// on). Cancelling the caller's context ends an operation at once with the
// context's error, so an interrupt reads as one. A checkout is bounded in
// size (Options.MaxTreeBytes, MaxTreeFiles) and streams large files from
// the pack to disk.
//
// Each operation chooses its transport (go-git's own for http, https, ssh
// and git; an in-process server for file://) and carries it, with its
// credentials and idle watchdog, to go-git through the operation's
// AuthMethod under a URL scheme of gitfetch's own (see transport.go).
// go-git v5 has no per-call transport, only a process-wide table; gitfetch
// adds its scheme to that table once and never replaces go-git's entries,
// so other users of go-git in the process are unaffected. A checkout
// from a local source uses no transport at all (see localsource.go).
//
// It also opens repositories on disk that fledge reads but does not
// control, a project's or a local plugin's (OpenLocal, and file://
// sources): every file go-git reads there is opened without blocking and
// only if it is a regular file, and nothing is written there.
//
// A remote that cannot be reached is reported as a RemoteError in a
// person's terms; a progress writer that is a Tracker hears when each
// transfer starts and ends.
package gitfetch

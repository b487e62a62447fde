// Package gitfetch fetches plugin repositories with go-git: listing a
// remote's refs without cloning, and checking out one exact revision (a tag,
// a branch head or a commit) into a directory: its head alone, or with the
// branch's history when an update must tell a fast-forward from a
// force-push (CheckoutFrom). It never runs the git binary:
// file:// remotes are served in-process, and submodules are never fetched.
// A remote that cannot be reached is reported as a RemoteError in a
// person's terms; a progress writer that is a Tracker hears when each
// transfer starts and ends.
package gitfetch

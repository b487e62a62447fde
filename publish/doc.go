// Package publish puts a plugin directory on GitHub, as the Rust fledge's
// `plugins publish` does: it finds the owner (an organisation, or the
// token's user), creates the repository or confirms an update to an
// existing one, tags it with the fledge-plugin topic, commits the
// directory's changes and pushes its branch with go-git.
//
// It talks to the REST API at a configurable base (FLEDGE_GITHUB_API),
// with a timeout on every request and bounded response reads, and sends
// the token only to that API over https (or to a loopback test server) and
// to the clone URL's host when it is the API's own or github.com. The
// token never appears in an error, a log line or the repository's config.
// Unlike the Rust fledge it never force-pushes: a remote that has commits
// the directory lacks is refused, and nothing of the user's is lost.
//
// It does not validate the plugin (the caller does, with package
// manifest), ask the user anything (Confirm is a callback) or print (Log is
// a writer).
package publish

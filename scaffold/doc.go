// Package scaffold writes a new plugin directory for `fledge plugins create`:
// a plugin.toml, a working fledge-v1 example in shell, Go, or Go built for
// the wasm sandbox (GOOS=wasip1), a README and a .gitignore. What it writes passes `fledge plugins validate` and installs
// as it is; the Go example needs only the standard library.
package scaffold

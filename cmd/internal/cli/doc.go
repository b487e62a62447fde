// Package cli is fledge's command-line interface: the cobra command tree,
// the IO streams with their terminal detection, the huh-backed prompter,
// JSON and table output, and the mapping from errors to exit codes.
//
// Commands are thin: each parses its flags into an options struct and calls
// into install, runner, registry, manifest or lockfile. Nothing outside cmd
// imports this package, and cobra and huh are used nowhere else.
package cli

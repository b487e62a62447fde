// Package protocol defines the fledge-v1 wire types: the messages fledge
// sends a plugin on its stdin (init, response, cancel) and the messages a
// plugin writes on its stdout (output, log, progress, prompt, confirm,
// select, multi_select, store, load, exec, metadata).
//
// Each message is one JSON object on one line. The host (package runner) and
// the plugin-author SDK (package plugin) both use these types, so they cannot
// drift apart. The package depends only on the standard library.
package protocol

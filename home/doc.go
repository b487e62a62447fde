// Package home owns fledge's on-disk layout under FLEDGE_HOME.
//
// Every state path is a method of Paths; nobody else joins state paths by
// hand. The package only names locations: reading and writing them belongs to
// lockfile (plugins.toml), install (plugin trees, staging) and kvstore
// (stores). It also names what the Rust fledge left in the same layout (a
// plugin's state.json, the plugins/bin links), so that fledge can take them
// over or clean them up.
package home

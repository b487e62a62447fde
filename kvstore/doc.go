// Package kvstore keeps a plugin's fledge-v1 key/value store: a JSON object
// of strings in a file beside the plugin's installed tree (never inside
// it, so the tree stays what was installed and a reinstall keeps the data),
// with the Rust fledge's limits.
//
// Writes are atomic renames made under a cross-process lock on a side file,
// with the store re-read inside it, so concurrent runs never lose each
// other's keys. A corrupt file is moved aside rather than replaced.
//
// The Rust fledge kept the same object in <plugin dir>/state.json. When a
// plugin's own store file does not exist yet, the first use takes that file
// over (Adopt): its bytes are copied under the store lock, the original is
// left where it is, and from then on the store file alone counts. Install
// adopts before it replaces a tree, so an update never drops the data a
// migrated plugin stored.
//
// It does not own where the files are (home.Paths) nor who may use the
// store (the runner enforces the grant).
package kvstore

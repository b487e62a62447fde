// Package treehash computes the content hash of a plugin tree: every file's
// path, executable bit and contents, and every symlink's target, in a fixed
// order, so an installed plugin can be checked byte for byte later.
//
// Walking a tree also vets it: symlinks that point out of the tree and
// special files (devices, sockets, pipes) are refused, since a plugin tree
// must be plain files.
package treehash

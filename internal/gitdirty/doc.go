// Package gitdirty answers one question fast: would `git status
// --porcelain` print anything for this repository's worktree? fledge asks
// it on every protocol run, for the init message's project.git.dirty, in
// whatever project the user or agent is standing in, so it must cost
// about what git's own answer costs, not go-git's full Worktree.Status
// (which decodes the index by reflection and hashes every file: 68 ms
// against git's 8.7 ms on a clean 5,000-file repository).
//
// It reads the index (split and sparse indexes included, which go-git
// cannot read), compares each tracked file's stat data with what the
// index recorded (hashing only files whose stat data changed, or that are
// racily clean, as git does), compares the index with HEAD through the
// index's cached tree, and walks the worktree for untracked files that no
// ignore rule covers, with the ignore files and config settings git reads.
// It stops at the first difference. Submodules are followed as git follows
// them. An index this package cannot read falls back to go-git's Status.
package gitdirty

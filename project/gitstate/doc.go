// Package gitstate answers what a plugin is told of the project's git
// repository: the init message's project.git (branch, dirty, remote,
// remote_url, root) and the metadata keys git_status, git_tags and
// git_log. The runner asks it; so can the wasm runtime (through the same
// session) and any other host of the protocol. Package project describes
// the directory itself.
//
// # One engine: git itself
//
// Every answer comes from the git command-line tool, run in the project
// directory as the Rust fledge runs it (src/protocol/detect.rs and
// metadata.rs, v1.7.2): `git status` decides dirty and lists git_status,
// `git tag --sort=-v:refname` and `git log --oneline` the others. So the
// answers are git's for every repository git itself opens (a sparse
// checkout with extensions.worktreeConfig, objectFormat=sha256, whatever
// the next git adds), with the user's config, GIT_DIR, GIT_CONFIG_COUNT,
// includeIf "hasconfig:" and the system config wherever this git keeps it;
// and init's dirty and git_status cannot disagree, being one command.
//
// This replaced an in-process reader of git's index, ignore files and
// config (internal/gitdirty, 2,271 lines and 3,900 of tests that took a
// third of the test suite's time) behind go-git, whose Status answered
// git_status and the reader's own fallback. Its edges failed open: go-git
// refuses the repositories above, which then had no git state at all; its
// Status called a worktree clean that git calls dirty; and the two engines
// gave plugins two answers. What it bought was speed, and measured on the
// same machine in the same run the gain was small: on a clean 5,000-file
// repository it took 10–15 ms a call against 13–20 ms for `git status
// --porcelain` as a process, with the same CPU time, and `fledge
// <command>` end to end (bench/all.sh) costs a few ms more now (see the
// README's Performance section). Exactness for every repository is worth
// those milliseconds; the reader is gone.
//
// # Running git in a repository fledge does not control
//
// A project may be a repository someone else made (an unpacked archive
// with its .git), so nothing in its config may make fledge execute a
// command. Every git process runs with command-line config, which outranks
// every config file and which git passes on to the processes it starts
// itself (the status of each submodule): core.fsmonitor=false,
// log.showSignature=false (gpg.program), core.hooksPath to the null
// device, no pager, no colour, protocol.allow=never (a partial clone never
// fetches), GIT_OPTIONAL_LOCKS=0 (git status never rewrites the index),
// no terminal prompt. git status runs a file's clean filter when the
// file's stat data changed, so every filter driver the repository's own
// config defines, or a checked-out submodule's, is found first (git config
// --show-scope, git ls-files for the submodules) and disabled; drivers from
// the user's system and global config, such as git-lfs, still run, as they
// do for every git status the user types. A file under a disabled filter
// whose stat data changed therefore counts as modified: dirty, never
// clean. Every command has a timeout (10 s) and a bound on what is read;
// output is read only until the answer is known (one status entry decides
// dirty).
//
// # Failing closed
//
// A directory below a .git (or with GIT_DIR set) is a repository for this
// package even when git cannot answer: git is not installed, refuses the
// repository (safe.directory, an extension it does not know, such as
// reftable before git 2.45), times out, or its config defines a filter
// driver that cannot be disabled. Then project.git is not null: it says
// dirty, and State.Warning names the reason, which the runner shows; the
// metadata keys have no answer (the runner sends null). A repository whose
// work tree is the user's home directory or above it (a dotfiles
// repository) is not the project's and is not reported, and neither is a
// directory with no work tree (a bare repository, the inside of .git).
package gitstate

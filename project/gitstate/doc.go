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
// config (2,271 lines, 4,098 of tests taking 20–30 s, a third of the
// suite), which answered dirty beside go-git, whose Status answered
// git_status and was the reader's fallback. Its edges failed open: go-git
// refuses the repositories above, which then had no git state at all; its
// Status called a worktree clean that git calls dirty (`build[!o]` and an
// untracked buildo); and the two engines gave plugins two answers. What it
// bought was speed, and measured in the same runs the gain was small: on a
// clean 5,000-file repository the reader took 10–15 ms a call against
// 13–20 ms for `git status --porcelain` as a process, for about the same
// CPU time. Open and State take 1.1–1.35x the time of `git status` alone
// (BenchmarkState) and, being four processes, about 1.6x the reader's CPU
// time (31–35 ms against 19–21 ms a call); `fledge <command>` in that
// repository took 53–76 ms with this package against 56–61 ms with the
// reader, in interleaved runs on a loaded 2-core machine (bench/all.sh's
// rows: git's processes run beside the plugin's start). Exactness for
// every repository git opens is worth that CPU; the reader is gone, and
// with it its split-index, sparse-index, includeIf and wildmatch code.
//
// # One process for a run
//
// A run asks Open and State once: in a plain repository (no filter
// driver, include or worktree setting in its config, no submodule, no
// variable that moves the repository) that is one git process, `git
// status --porcelain=v2 -z --branch`, started by Open, with the remote read
// from the config files and the work tree's top from the .git found.
// Anything else takes the full inspection below (four processes); fast.go
// lists what sends it there and why each case is exact.
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
// The options used need git 2.26 or later (git config --show-scope); an
// older git fails closed, naming the option it does not know.
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

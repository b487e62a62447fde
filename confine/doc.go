// Package confine turns what a native plugin was granted into what the
// kernel lets its process, and everything that process starts, do: a
// Profile of paths and a network switch, applied with Landlock (and a
// small seccomp filter for what Landlock's ABI does not reach) by Start,
// where the plugin, hook or build is started.
//
// Go cannot run code between fork and exec, so Start puts the profile on
// the thread that forks: a goroutine locked to a thread of its own
// restricts that thread alone (Landlock's restrict_self, no_new_privs and
// seccomp all bind the calling thread), starts the command from it, which
// inherits all three, and ends, taking the thread with it. fledge's other
// threads, and those the runtime makes later, stay unconfined (see Start
// for why). No second fledge process is started.
//
// # The profile table
//
// The row is the filesystem scope the approved manifest declares, as far
// as the effective grants (plugins.toml narrowed by the admin policy; see
// package settings) grant it: a declared scope not granted is "none".
//
//	scope        system   own tree    own files  TMPDIR  project  /tmp    network
//	none         r+x      r+x         rw         rw      -        -       as granted
//	project      r+x      r+x         rw         rw      read     -       as granted
//	plugin       r+x      r+x         rw         rw      read     -       as granted
//	(undeclared) r+x      rw          rw         rw      rw       rw      allowed
//
// "system" is SystemDirs (/usr, /bin, /sbin, /lib*, /etc, /opt, /nix,
// /var, /run, /sys) read and execute, /proc read, /dev read, write and
// ioctl (but /dev/shm, a shared temporary directory, only for the
// undeclared row), the PATH directories (a toolchain under a
// dot-directory, such as ~/.pyenv or ~/.cargo, whole but for ToolSecrets)
// and the toolchains' homes (ToolHomes, ToolEnv). "own files" is
// home.Paths.PluginFilesDir; TMPDIR is a private directory made for the
// run and removed after. The project is the directory fledge runs in and
// the top of its git work tree. Scopes that read the project also read
// git's configuration in home (HomeReadable). The undeclared row keeps
// plugins written for the Rust fledge, which declare nothing, working as
// before.
//
// Hooks and builds get DeriveBuild's profile: what a plugin may read, and
// their tree, the toolchains' caches (BuildCaches) and the temporary
// directories read-write, with the network; a build inside a git work tree
// outside FLEDGE_HOME also reads that work tree (its module root).
//
// Never granted, whatever the row: the home directory (keys, cloud
// credentials, shell start-up files), the user's own home when HOME names
// another, and FLEDGE_HOME (plugins.toml, the grant log, other plugins'
// trees and data) — but for the subpaths a row grants explicitly. Landlock
// only adds rights, so a broad grant that holds one of them (/tmp holding
// a home directory, a project that holds FLEDGE_HOME) is split into grants
// of its entries, leaving the hidden tree out; a grant that is one of them
// (running fledge in your home directory) is dropped.
//
// Network "as granted" means, without the grant: no TCP bind or connect
// (Landlock ABI 4), and a seccomp filter that refuses every socket but
// UNIX, netlink and plain TCP, TCP Fast Open sends and io_uring, so no UDP
// either, loopback included.
//
// # What the kernel must offer
//
// Landlock runs best effort (see Apply): a right the kernel's ABI lacks is
// left unconfined, and Detect says which. Without Landlock at all the
// runner starts the plugin directly, as before, and says so.
//
// It does not own: which scope a plugin declares or is granted (manifest,
// lockfile, settings), or when a plugin is confined (the runner).
package confine

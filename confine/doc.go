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
// home.Paths.PluginFilesDir; TMPDIR is the plugin's private temporary
// directory (home.Paths.PluginTempDir), which its runs take in turn, empty
// at the start and the end of each (TakeTemp; a run started while another
// holds it gets one of its own; where its path leaves a UNIX socket's too
// little room, home.Paths.PluginShortTempDir stands in for it). The project is the directory fledge runs in and
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
// # The environment table
//
// A confined plugin, its hooks and its build do not inherit fledge's
// environment: they get the base environment (BaseEnv) and the variables
// they are granted (Environment). A plugin's manifest declares what it
// needs beyond the base ([capabilities] environment = ["GITHUB_TOKEN",
// "AWS_*"]: names, or prefixes ending in '*'); the user grants it all
// ("environment") or one by one ("env:GITHUB_TOKEN"); the admin policy
// judges both as the capability environment. A base entry whose name
// Secret holds for a secret (FLEDGE_GITHUB_TOKEN), or whose value does in
// a row that may carry a credential (a proxy URL with a password; the
// rows from EDITOR down, EnvRow.Values; a value that is one absolute path
// is not searched), is withheld like any other. Drawing it costs a run
// about 20 µs of CPU with a developer's 35 variables (BenchmarkEnvironment
// at load 3.5; 29 µs when each variable searched the table rather than
// its index), and a value rule's expression is compiled only for a value
// that may match it (one holding a token format's literal, "://", a
// space): compiling them all cost every run that checks a value 0.3 to
// 0.5 ms.
//
//	variables                                      why
//	LANG LANGUAGE LC_* TZ                          locale and time zone
//	TERM COLORTERM NO_COLOR FORCE_COLOR CLICOLOR   the terminal and colour
//	  CLICOLOR_FORCE COLUMNS LINES TERM_PROGRAM
//	PATH HOME USER LOGNAME SHELL PWD TMPDIR        programs, the user, the run's
//	                                               private TMPDIR
//	EDITOR VISUAL PAGER                            the user's chosen programs
//	XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME   where files live (the files
//	  XDG_STATE_HOME                               stay hidden unless granted)
//	CI                                             whether it runs under CI
//	HTTP(S)_PROXY NO_PROXY ALL_PROXY (and lower    the network as the user
//	  case) SSL_CERT_FILE SSL_CERT_DIR             reaches it
//	GOPATH GOROOT GOCACHE GOMODCACHE GOFLAGS       Go builds, and the Go
//	  GOPROXY GOSUMDB GOPRIVATE GONOPROXY          runtime's switches
//	  GONOSUMDB GOTOOLCHAIN GO111MODULE GOENV
//	  GOTMPDIR CGO_ENABLED GODEBUG GOTRACEBACK
//	  GOMAXPROCS GOGC GOMEMLIMIT
//	CARGO_* RUSTUP_* RUSTFLAGS RUSTDOCFLAGS        Rust builds, and Rust
//	  RUST_BACKTRACE RUST_LIB_BACKTRACE RUST_LOG   programs' diagnostics
//	npm_config_* NPM_CONFIG_* NODE_PATH            Node builds and runtimes
//	  NODE_OPTIONS NODE_ENV NVM_DIR BUN_INSTALL
//	  VOLTA_HOME PNPM_HOME YARN_CACHE_FOLDER
//	PIP_* VIRTUAL_ENV PYENV_ROOT PYENV_VERSION     Python
//	  PYTHONPATH PYTHONUSERBASE PYTHONUNBUFFERED
//	  PYTHONDONTWRITEBYTECODE PYTHONIOENCODING
//	  UV_CACHE_DIR
//	JAVA_HOME GRADLE_USER_HOME SDKMAN_DIR          other toolchains' homes
//	  RBENV_ROOT
//	CC CXX CFLAGS CXXFLAGS CPPFLAGS LDFLAGS        C compilers and make
//	  PKG_CONFIG_PATH MAKEFLAGS MFLAGS MAKELEVEL
//	FLEDGE_*                                       what fledge sets
//	                                               (FLEDGE_PLUGIN_DIR, …) and
//	                                               plugins' settings named so
//
// Not in it, so withheld unless granted: tokens and keys (GITHUB_TOKEN,
// AWS_*, *_API_KEY), URLs that carry credentials (DATABASE_URL), agent
// sockets (SSH_AUTH_SOCK, GPG_AGENT_INFO), display servers (DISPLAY,
// WAYLAND_DISPLAY, XDG_RUNTIME_DIR, DBUS_SESSION_BUS_ADDRESS), and
// everything else. What a plugin may have wanted is named in one note on
// stderr with the command that grants it, never with a value: what its
// manifest declares and is not granted, or, for a plugin that declares no
// environment (every plugin the Rust fledge published), what its script
// names (NamedIn: 33 µs for a 16 KiB script, BenchmarkNamedIn; a compiled
// program is not read; for a hook, its command and the script it runs). The environment follows the confinement switch: where
// confinement is turned off (FLEDGE_CONFINE=off, fledge plugins unconfine
// NAME or --all) a plugin inherits fledge's whole environment, as before,
// and the run says so; a kernel without Landlock does not turn it off.
//
// What fledge hands a plugin on the wire (metadata "env", the environment
// of exec's commands) is the user's environment passed through FilterEnv,
// whose name and value rules Secret shares.
//
// # What the kernel must offer
//
// Landlock runs best effort (see Apply): a right the kernel's ABI lacks is
// left unconfined, and Detect says which. Without Landlock at all the
// runner starts the plugin directly, as before, and says so.
//
// It does not own: which scope or variables a plugin declares or is
// granted (manifest, lockfile, settings), or when a plugin is confined
// (the runner, and install for hooks and builds).
package confine

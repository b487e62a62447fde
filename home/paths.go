package home

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// EnvHome is the environment variable that roots all of fledge's state.
const EnvHome = "FLEDGE_HOME"

// Paths locates fledge's state below one root directory.
type Paths struct {
	root string
}

// New returns the layout rooted at root, which is made absolute.
func New(root string) (Paths, error) {
	if root == "" {
		return Paths{}, errors.New("empty fledge home")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return Paths{}, fmt.Errorf("fledge home %q: %w", root, err)
	}
	return Paths{root: abs}, nil
}

// FromEnv returns the layout rooted at $FLEDGE_HOME, or at
// <os.UserConfigDir()>/fledge when it is unset.
func FromEnv(getenv func(string) string) (Paths, error) {
	if dir := getenv(EnvHome); dir != "" {
		return New(dir)
	}
	cfg, err := os.UserConfigDir()
	if err != nil {
		return Paths{}, fmt.Errorf("cannot find a home for fledge (set %s): %w", EnvHome, err)
	}
	return New(filepath.Join(cfg, "fledge"))
}

// Root is FLEDGE_HOME itself.
func (p Paths) Root() string { return p.root }

// PluginsFile is plugins.toml, the record of every installed plugin.
func (p Paths) PluginsFile() string { return filepath.Join(p.root, "plugins.toml") }

// PluginsLock is the side file locked while plugins.toml is read, modified
// and written, so concurrent fledge processes serialise.
func (p Paths) PluginsLock() string { return filepath.Join(p.root, ".plugins.toml.lock") }

// ConfigFile is config.toml, the user's settings.
func (p Paths) ConfigFile() string { return filepath.Join(p.root, "config.toml") }

// PluginsDir holds one installed tree per plugin.
func (p Paths) PluginsDir() string { return filepath.Join(p.root, "plugins") }

// PluginDir is the installed tree of the named plugin (for a live-linked
// local plugin, a symlink to its source directory).
func (p Paths) PluginDir(name string) string { return filepath.Join(p.PluginsDir(), name) }

// DataDir holds what fledge keeps about a plugin beside its tree: the
// protocol store and the file list recorded at install.
func (p Paths) DataDir(name string) string {
	return filepath.Join(p.PluginsDir(), ".data", name)
}

// StoreFile is the named plugin's fledge-v1 key/value store. It lives beside
// the plugin's tree, not inside it, so the plugin's files stay exactly what
// was installed and a reinstall keeps the store.
func (p Paths) StoreFile(name string) string { return filepath.Join(p.DataDir(name), "store.json") }

// RustStateFile is where the Rust fledge kept the named plugin's store:
// state.json inside its tree. fledge only reads it, to take it over (see
// package kvstore).
func (p Paths) RustStateFile(name string) string {
	return filepath.Join(p.PluginDir(name), "state.json")
}

// TreeFile is the per-file hash list recorded when the plugin was installed.
func (p Paths) TreeFile(name string) string { return filepath.Join(p.DataDir(name), "tree.json") }

// StagingDir is where installs and updates build a new tree before it is
// renamed into place. It sits beside PluginsDir's entries so the rename
// stays on one filesystem.
func (p Paths) StagingDir() string { return filepath.Join(p.PluginsDir(), ".staging") }

// TrashDir receives trees being replaced or removed, so the swap is a rename
// and the slow delete happens after the record is written.
func (p Paths) TrashDir() string { return filepath.Join(p.PluginsDir(), ".trash") }

// CacheDir holds disposable data such as registry index caches.
func (p Paths) CacheDir() string { return filepath.Join(p.root, "cache") }

// BinDir holds a link per installed command (fledge-<command>), for users
// who want plugin commands on PATH. fledge itself never runs through them.
func (p Paths) BinDir() string { return filepath.Join(p.root, "bin") }

// CommandLink is the link for one command in BinDir.
func (p Paths) CommandLink(command string) string {
	return filepath.Join(p.BinDir(), "fledge-"+command)
}

// RustBinDir is where the Rust fledge linked each installed command
// (plugins/bin/fledge-<command>). fledge makes no links there; it removes
// those of the plugins it removes.
func (p Paths) RustBinDir() string { return filepath.Join(p.PluginsDir(), "bin") }

// RustCommandLink is the Rust fledge's link for one command (with .exe on
// Windows, as Rust names it there).
func (p Paths) RustCommandLink(command string) string {
	name := "fledge-" + command
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(p.RustBinDir(), name)
}

// TreeLock is the side file locked while plugin trees and links are
// swapped, so concurrent installs and removes of plugins serialise their
// commit phase (fetching and building run in parallel).
func (p Paths) TreeLock() string { return filepath.Join(p.root, ".plugins.lock") }

// RegistryCacheFile is the cached plugin index (and what is needed to
// revalidate it) kept so search and install by name work offline.
func (p Paths) RegistryCacheFile() string { return filepath.Join(p.CacheDir(), "registry-index.json") }

// ListCacheFile holds the last plugins list --json document, keyed on the
// inputs it was rendered from.
func (p Paths) ListCacheFile() string { return filepath.Join(p.CacheDir(), "list.json") }

// PluginsDigestFile remembers plugins.toml's digest while the file stays
// as it was (derived.DigestFileMemo), so list --json finds its document,
// and a run its command (lockfile's CommandOwner, for a large file),
// without reading the file.
func (p Paths) PluginsDigestFile() string { return filepath.Join(p.CacheDir(), "plugins.toml.sum") }

// ExternalsIndexFile remembers the fledge-<name> names in each PATH
// directory while the directory stays as it was (runner.Externals).
func (p Paths) ExternalsIndexFile() string { return filepath.Join(p.CacheDir(), "path.idx") }

// CommandIndexFile indexes plugins.toml by command, so running a command
// decodes one entry rather than the whole file.
func (p Paths) CommandIndexFile() string { return filepath.Join(p.CacheDir(), "commands.idx") }

// DecodedManifestFile holds the plugin's installed plugin.toml decoded,
// keyed on its bytes, so a run decodes no TOML (runner.resolveTree). It
// lies outside everything a confined plugin may write.
func (p Paths) DecodedManifestFile(name string) string {
	return filepath.Join(p.CacheDir(), "manifest-"+name)
}

// DecodedPluginsFile holds plugins.toml decoded, for the commands that
// read every entry at start-up (lockfile.Store.LoadCached).
func (p Paths) DecodedPluginsFile() string { return filepath.Join(p.CacheDir(), "plugins.decoded") }

// PluginFilesDir is the directory a wasm plugin granted filesystem =
// "plugin" sees, read-write, as /plugin. It lives beside the plugin's tree,
// like the store, so the installed files stay exactly what was approved.
func (p Paths) PluginFilesDir(name string) string { return filepath.Join(p.DataDir(name), "files") }

// PluginTempDir is the TMPDIR that the named native plugin's confined runs
// take in turn (see confine.TakeTemp): beside its files, empty between
// runs.
func (p Paths) PluginTempDir(name string) string { return filepath.Join(p.DataDir(name), "tmp") }

// PluginShortTempDir stands in for PluginTempDir where that is too long
// for a program to make its UNIX sockets below it (see confine.TakeTemp):
// t/ and the first 12 hex digits (48 bits) of the plugin's name's SHA-256,
// 16 bytes past the root (macOS's default root, in Application Support,
// gives 61). Two names share one only by a hash collision, and even then
// no run sees another's files: one run holds it at a time, and it is
// emptied before and after each.
func (p Paths) PluginShortTempDir(name string) string {
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(p.root, "t", hex.EncodeToString(sum[:6]))
}

// RustPluginFilesDir is where the Rust fledge kept what a wasm plugin wrote
// to /plugin: data/ inside its tree. fledge only reads it, to take it over
// into PluginFilesDir.
func (p Paths) RustPluginFilesDir(name string) string {
	return filepath.Join(p.PluginDir(name), "data")
}

// WasmCacheDir holds wazero's compiled wasm modules, keyed by wazero on the
// module's SHA-256, the wazero version and the CPU. Deleting it only costs
// a recompile.
func (p Paths) WasmCacheDir() string { return filepath.Join(p.CacheDir(), "wasm") }

// GrantLog is the append-only, hash-chained record of every change to what
// plugins are granted (see package grantlog).
func (p Paths) GrantLog() string { return filepath.Join(p.root, "grants.log") }

// EventsFile is the append-only JSON Lines trail of run-time decisions:
// every run, MCP tool call and denial (see package events). Rotated
// copies sit beside it as events.jsonl.1, .2, ...
func (p Paths) EventsFile() string { return filepath.Join(p.root, "events.jsonl") }

// PolicyDenialsFile remembers which run-time policy denials of the named
// plugin the grant log already holds, so each is logged once per policy.
func (p Paths) PolicyDenialsFile(name string) string {
	return filepath.Join(p.DataDir(name), "policy-denials")
}

package confine

import (
	"os"
	"path/filepath"
)

// ScopeBuild is the profile of an approved hook or build command.
const ScopeBuild Scope = "build"

// BuildCaches are the directories under home that toolchains write while
// building: their caches and downloaded dependencies (go, cargo, rustup,
// npm, pip, bun, gradle, maven). BuildCacheEnv names them elsewhere.
var (
	BuildCaches   = []string{".cache", ".cargo", ".rustup", "go", ".npm", ".bun", ".gradle", ".m2", ".pnpm-store", ".local/share/pnpm"}
	BuildCacheEnv = []string{"GOCACHE", "GOMODCACHE", "GOPATH", "CARGO_HOME", "RUSTUP_HOME", "CARGO_TARGET_DIR", "npm_config_cache", "PIP_CACHE_DIR", "XDG_CACHE_HOME", "BUN_INSTALL"}
)

// DeriveBuild is the profile of a hook or build command run in dir (the
// staging tree being built, or the installed tree): what a plugin's code
// may read, dir and the toolchains' caches (BuildCaches, and Places.Tools
// for the directories BuildCacheEnv names) read-write, the private and
// shared temporary directories, and the network (builds fetch their
// dependencies). Home's other files and FLEDGE_HOME but dir stay out of
// reach, as for a plugin.
func DeriveBuild(dir string, at Places) Profile {
	p := Profile{Scope: ScopeBuild, Network: true}
	rs := newResolver()
	hidden := at.hidden(rs)
	for _, s := range ToolSecrets {
		for _, h := range []string{at.Home, at.UserHome} {
			if h != "" {
				hidden = append(hidden, rs.real(filepath.Join(h, s)))
			}
		}
	}
	c := collect{}
	add := func(dst *[]string, paths ...string) {
		for _, path := range paths {
			c.add(dst, allowed(rs, path, hidden, &p.Dropped))
		}
	}
	add(&p.ReadExec, SystemDirs...)
	add(&p.Read, "/proc")
	add(&p.Devices, "/dev")
	add(&p.ReadExec, toolDirs(rs, at.Path)...)
	add(&p.Read, homeFiles(at.Home)...)
	for _, h := range []string{at.Home, at.UserHome} {
		if h == "" {
			continue
		}
		for _, d := range ToolHomes {
			add(&p.ReadExec, filepath.Join(h, d))
		}
		for _, d := range BuildCaches {
			add(&p.Write, filepath.Join(h, d))
		}
	}
	add(&p.Write, at.Tools...)
	add(&p.Write, dir, at.Temp, "/tmp", "/var/tmp")
	if root := buildWorkTree(rs, dir, at); root != "" {
		add(&p.Read, root)
	}
	p.listed = rs.kinds
	return p
}

// buildWorkTree is the top of the git work tree holding dir, which a build
// there may read: a live-linked plugin inside a repository builds against
// what is above it (Go reads go.mod and go.work there, cargo its workspace
// root, npm its workspaces), as this repository's own example does. It is
// "" when there is none, when dir is under FLEDGE_HOME (an installed or
// staged tree builds on its own), and when the work tree is "/" or holds a
// home directory or FLEDGE_HOME: read access is never widened to those (a
// work tree that is a home directory itself is dropped by allowed, and
// the build sees what it always did).
func buildWorkTree(rs *resolver, dir string, at Places) string {
	d := rs.real(dir)
	if at.FledgeHome != "" && under(rs.real(at.FledgeHome), d) {
		return ""
	}
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
	if d == "/" || d == rs.real(dir) {
		return ""
	}
	for _, h := range at.hidden(rs) {
		if h != d && under(d, h) {
			return ""
		}
	}
	return d
}

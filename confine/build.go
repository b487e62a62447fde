package confine

import "path/filepath"

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
	hidden := at.hidden()
	for _, s := range ToolSecrets {
		for _, h := range []string{at.Home, at.UserHome} {
			if h != "" {
				hidden = append(hidden, real(filepath.Join(h, s)))
			}
		}
	}
	add := func(dst *[]string, paths ...string) {
		for _, path := range paths {
			*dst = appendNew(*dst, allowed(path, hidden, &p.Dropped)...)
		}
	}
	add(&p.ReadExec, SystemDirs...)
	add(&p.Read, "/proc")
	add(&p.Devices, "/dev")
	add(&p.ReadExec, toolDirs(at.Path)...)
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
	return p
}

func appendNew(dst []string, paths ...string) []string {
	for _, p := range paths {
		seen := false
		for _, d := range dst {
			if d == p {
				seen = true
				break
			}
		}
		if !seen {
			dst = append(dst, p)
		}
	}
	return dst
}

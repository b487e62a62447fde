package confine

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Scope names a row of the profile table (see the package doc).
type Scope string

// The scopes of the profile table. ScopeDefault is the profile of a plugin
// whose approved manifest declares no filesystem scope: every plugin the
// Rust fledge published.
const (
	ScopeNone    Scope = "none"
	ScopeProject Scope = "project"
	ScopePlugin  Scope = "plugin"
	ScopeDefault Scope = "undeclared"
)

// SystemDirs are the directories every profile may read and execute from,
// less anything holding the home directory or FLEDGE_HOME (see Places).
// Missing ones are skipped.
var SystemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/var", "/run", "/sys"}

// HomeReadable are the files under the home directory that profiles which
// may read the project may also read: git's own configuration, so that git
// run by a plugin knows who commits. Nothing else under home is readable
// unless it is the project itself, the plugin's own tree or data, a PATH
// directory or a toolchain's (ToolHomes, ToolEnv).
var HomeReadable = []string{".gitconfig", ".config/git"}

// Places are the real locations a profile is drawn from. The runner fills
// them; Derive never reads the environment.
type Places struct {
	// Home is the user's home directory; FledgeHome is FLEDGE_HOME. Both are
	// hidden from every profile but for the subpaths it grants.
	Home, FledgeHome string
	// UserHome is the user's own home directory when HOME names another;
	// it is hidden too.
	UserHome string
	// PluginRoot is the plugin's installed tree (read and execute); Data is
	// its own files directory (read and write); Temp is the run's private
	// temporary directory (read and write, TMPDIR).
	PluginRoot, Data, Temp string
	// Project lists the project's directories: the directory fledge runs in
	// and the top of its git work tree.
	Project []string
	// Path lists the PATH directories (read and execute: the programs the
	// user chose to run).
	Path []string
	// Tools lists toolchain directories named by the environment
	// (ToolEnv), read and executed as PATH directories are.
	Tools []string
}

// Profile is what the kernel lets a confined plugin do, as lists of real
// paths. It is what Start applies.
type Profile struct {
	// Scope is the table row it was drawn from.
	Scope Scope `json:"scope"`
	// ReadExec may be read and executed; Read only read; Write read,
	// written and executed.
	ReadExec []string `json:"read_exec,omitempty"`
	Read     []string `json:"read,omitempty"`
	Write    []string `json:"write,omitempty"`
	// Devices may be read, written and ioctl'd (terminals, /dev/null).
	Devices []string `json:"devices,omitempty"`
	// Network allows sockets to any address; without it no TCP or UDP
	// socket may bind or connect, loopback included.
	Network bool `json:"network"`
	// Dropped names what the table grants but the profile left out, and
	// why (a project that is the home directory).
	Dropped []string `json:"dropped,omitempty"`

	// listed are the types of the paths drawn from a directory's
	// entries (a grant split around a hidden tree): compile opens them
	// without following a link that replaced one since, and gives a
	// file file rights without trying directory rights first.
	listed map[string]fs.FileMode
}

// collect gathers a profile's paths, each once per list. A split grant
// gives hundreds of paths (a /tmp holding FLEDGE_HOME), which a search of
// the list for each made quadratic.
type collect map[*[]string]map[string]bool

// add appends to dst those of paths it does not hold.
func (c collect) add(dst *[]string, paths []string) {
	seen := c[dst]
	if seen == nil {
		seen = make(map[string]bool, len(*dst)+len(paths))
		for _, d := range *dst {
			seen[d] = true
		}
		c[dst] = seen
	}
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			*dst = append(*dst, p)
		}
	}
}

// Grants are the effective grants a profile is drawn from: what
// plugins.toml records, narrowed by the admin policy (package settings),
// as manifest.Capabilities holds them. confine does not import manifest:
// it stays a leaf.
type Grants struct {
	// Filesystem is the granted scope ("" or "none": none).
	Filesystem string
	Network    bool
}

// ScopeOf is the table row for a plugin: the filesystem scope its approved
// manifest declares, as far as it is granted (effective, after the admin
// policy). A declared scope that is not granted is ScopeNone; no manifest
// declaration is ScopeDefault. A scope fledge does not know is ScopeNone:
// it has no defined bound to grant.
func ScopeOf(declared string, effective Grants) Scope {
	if declared == "" {
		return ScopeDefault
	}
	if effective.Filesystem == "" || effective.Filesystem == "none" || effective.Filesystem != declared {
		return ScopeNone
	}
	switch Scope(declared) {
	case ScopeProject, ScopePlugin:
		return Scope(declared)
	}
	return ScopeNone
}

// Derive draws a plugin's profile from its declared filesystem scope and
// its effective grants (what plugins.toml records, narrowed by the admin
// policy): never from the manifest alone.
func Derive(declared string, effective Grants, at Places) Profile {
	scope := ScopeOf(declared, effective)
	p := Profile{Scope: scope}
	rs := newResolver()
	hidden := at.hidden(rs)
	for _, s := range ToolSecrets {
		if at.Home != "" {
			hidden = append(hidden, rs.real(filepath.Join(at.Home, s)))
		}
	}
	c := collect{}
	addExcept := func(dst *[]string, except []string, paths ...string) {
		h := append(slices.Clip(except), hidden...)
		for _, path := range paths {
			c.add(dst, allowed(rs, path, h, &p.Dropped))
		}
	}
	add := func(dst *[]string, paths ...string) { addExcept(dst, nil, paths...) }
	add(&p.ReadExec, SystemDirs...)
	add(&p.Read, "/proc")
	if scope == ScopeDefault {
		add(&p.Devices, "/dev")
	} else {
		// /dev/shm is a shared temporary directory, like /tmp.
		addExcept(&p.Devices, []string{"/dev/shm"}, "/dev")
	}
	add(&p.ReadExec, at.PluginRoot)
	add(&p.ReadExec, toolDirs(rs, at.Path)...)
	add(&p.ReadExec, at.Tools...)
	for i, h := range []string{at.Home, at.UserHome} {
		if h == "" || i == 1 && h == at.Home {
			continue
		}
		for _, d := range ToolHomes {
			add(&p.ReadExec, filepath.Join(h, d))
		}
	}
	add(&p.Write, at.Data)
	if t := tempDir(rs, at.Temp); t != "" {
		add(&p.Write, t)
		rs.kinds[t] = fs.ModeDir // compile opens it without following a link
	}

	switch scope {
	case ScopeNone:
		p.Network = effective.Network
	case ScopeProject, ScopePlugin:
		p.Network = effective.Network
		add(&p.Read, at.Project...)
		add(&p.Read, homeFiles(at.Home)...)
	case ScopeDefault:
		// As in the Rust fledge: the project read-write, the shared
		// temporary directory, the network, and its own tree writable
		// (what it writes there, verify reports).
		p.Network = true
		add(&p.Write, at.PluginRoot)
		add(&p.Write, at.Project...)
		add(&p.Write, "/tmp", "/var/tmp")
		add(&p.Read, homeFiles(at.Home)...)
	}
	p.listed = rs.kinds
	return p
}

// tempDir is the run's TMPDIR as a profile grants it: the directory
// itself, never through a link. A directory made for the run in the
// shared /tmp (TakeTemp, when another run holds the plugin's own) can be
// renamed and a link put in its place by any program of the user's, such
// as another plugin granted /tmp; granted through the link, the run would
// write wherever it leads. So its parent's links are resolved and its own
// is not: drawn, it must be a directory (lstat); compiled, it is opened
// without following a link (Profile.listed), so one swapped in since is
// not granted. "" when it is not a directory.
func tempDir(rs *resolver, temp string) string {
	if temp == "" {
		return ""
	}
	parent, err := rs.eval(filepath.Dir(temp))
	if err != nil {
		return ""
	}
	t := filepath.Join(parent, filepath.Base(temp))
	if fi, err := os.Lstat(t); err != nil || !fi.IsDir() {
		return ""
	}
	return t
}

// ToolHomes are the directories under home where toolchains install
// themselves (rustup's toolchains are not on PATH, only its proxies in
// ~/.cargo/bin): read and executed when they exist.
var ToolHomes = []string{".rustup", ".cargo", ".pyenv", ".nvm", ".bun", ".deno", ".volta", ".sdkman", ".rbenv", ".goenv"}

// ToolEnv are the variables naming a toolchain's directory elsewhere.
var ToolEnv = []string{"RUSTUP_HOME", "CARGO_HOME", "PYENV_ROOT", "NVM_DIR", "BUN_INSTALL", "VOLTA_HOME", "SDKMAN_DIR", "RBENV_ROOT", "GOROOT"}

// ToolSecrets are files inside toolchain directories under home (see
// toolDirs) that stay hidden even when their toolchain is readable.
var ToolSecrets = []string{".cargo/credentials", ".cargo/credentials.toml"}

// personal are the directories under home that hold the user's own
// configuration and secrets: a PATH entry inside one is granted alone.
var personal = map[string]bool{".ssh": true, ".aws": true, ".gnupg": true, ".config": true, ".local": true,
	".docker": true, ".kube": true, ".azure": true, ".gcloud": true, ".password-store": true, ".mozilla": true}

// toolDirs is what the PATH directories give to read and execute. One
// inside a hidden directory belongs to a toolchain installed there
// (~/.pyenv/shims, ~/.cargo/bin, ~/.nvm/…/bin), whose programs read the
// rest of their tree: the whole hidden directory is granted, unless it is
// a personal one (~/.local/bin, ~/.config/…/bin are granted alone).
func toolDirs(rs *resolver, path []string) []string {
	var out []string
	for _, d := range path {
		if d == "" || !filepath.IsAbs(d) {
			continue // a relative entry means wherever the plugin stands
		}
		r := rs.real(d)
		parts := strings.Split(r, string(filepath.Separator))
		grant := r
		for i, part := range parts {
			if strings.HasPrefix(part, ".") && part != "." && part != ".." {
				if !personal[part] {
					grant = strings.Join(parts[:i+1], string(filepath.Separator))
				}
				break
			}
		}
		out = append(out, grant)
	}
	return out
}

func homeFiles(home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for _, f := range HomeReadable {
		out = append(out, filepath.Join(home, f))
	}
	return out
}

// hidden are the trees no broad grant may include: home and FLEDGE_HOME.
func (at Places) hidden(rs *resolver) []string {
	var out []string
	for _, h := range []string{at.Home, at.UserHome, at.FledgeHome} {
		if h != "" {
			out = append(out, rs.real(h))
		}
	}
	return out
}

// Summary is one line saying what the profile allows, for notes and --json.
func (p Profile) Summary() string {
	var b strings.Builder
	b.WriteString(string(p.Scope))
	if p.Network {
		b.WriteString(", network allowed")
	} else {
		b.WriteString(", no network")
	}
	return b.String()
}

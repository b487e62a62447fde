package confine

import (
	"slices"
	"strings"
	"sync"
)

// EnvRow is one row of the base environment table: variables every
// confined plugin, hook and build is given, and why.
type EnvRow struct {
	// Names are variable names; one ending in '*' names a prefix.
	Names []string
	Why   string
	// Values marks a row whose values may carry a credential (a proxy
	// URL, a registry setting): they pass Secret's value rules too. The
	// other rows hold what the system sets (paths, the locale, the
	// terminal), whose names alone are checked: the value rules' cost
	// grows with a value's length, and PATH is long.
	Values bool
}

// BaseEnv is the base environment table (the package doc shows it): what
// a confined plugin, its hooks and its build get of fledge's environment
// without any grant, each entry only when Secret's name rules (and, for a
// row marked Values, its value rules) do not hold it for a secret (a
// proxy or index URL with a password in it, FLEDGE_GITHUB_TOKEN).
// Everything else is given only when granted by name (Environment).
var BaseEnv = []EnvRow{
	{Names: []string{"LANG", "LANGUAGE", "LC_*", "TZ"}, Why: "locale and time zone: messages, sorting and dates as the user set them"},
	{Names: []string{"TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES", "TERM_PROGRAM"},
		Why: "the terminal: what it can draw, and whether to use colour"},
	{Names: []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "TMPDIR"},
		Why: "where programs are, who and where the user is; TMPDIR is the run's private directory"},
	{Names: []string{"EDITOR", "VISUAL", "PAGER"}, Why: "the programs the user picked to edit and page", Values: true},
	{Names: []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"},
		Why: "where configuration and caches live (the files stay hidden unless granted)"},
	{Names: []string{"CI"}, Why: "whether it runs under CI, which plugins and builds ask"},
	{Names: []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR"},
		Why: "the network as the user reaches it (a proxy URL with a password is withheld)", Values: true},
	{Names: []string{"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOSUMDB", "GOPRIVATE", "GONOPROXY", "GONOSUMDB",
		"GOTOOLCHAIN", "GO111MODULE", "GOENV", "GOTMPDIR", "CGO_ENABLED", "GODEBUG", "GOTRACEBACK", "GOMAXPROCS", "GOGC", "GOMEMLIMIT"},
		Why: "Go builds: the toolchain, its caches and module settings; the runtime's own switches, which every Go program reads", Values: true},
	{Names: []string{"CARGO_*", "RUSTUP_*", "RUSTFLAGS", "RUSTDOCFLAGS", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE", "RUST_LOG"},
		Why: "Rust builds: cargo and rustup homes, caches and flags; the diagnostics every Rust program reads", Values: true},
	{Names: []string{"npm_config_*", "NPM_CONFIG_*", "NODE_PATH", "NODE_OPTIONS", "NODE_ENV", "NVM_DIR", "BUN_INSTALL", "VOLTA_HOME", "PNPM_HOME", "YARN_CACHE_FOLDER"},
		Why: "Node builds: npm's settings and the toolchain's homes", Values: true},
	{Names: []string{"PIP_*", "VIRTUAL_ENV", "PYENV_ROOT", "PYENV_VERSION", "PYTHONPATH", "PYTHONUSERBASE", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "UV_CACHE_DIR"},
		Why: "Python: pip's settings, the virtual environment and the toolchain", Values: true},
	{Names: []string{"JAVA_HOME", "GRADLE_USER_HOME", "SDKMAN_DIR", "RBENV_ROOT"}, Why: "other toolchains' homes", Values: true},
	{Names: []string{"CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PKG_CONFIG_PATH", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"},
		Why: "C compilers and make, which builds run", Values: true},
	{Names: []string{"FLEDGE_*"}, Why: "what fledge sets (FLEDGE_PLUGIN_DIR, FLEDGE_NON_INTERACTIVE) and plugins' own settings named after it", Values: true},
}

// plainPath reports a value that is one absolute path and nothing else
// (GOCACHE=/home/u/.cache/go-build): no URL, list, parameter or
// user:password can hide in it, so the value rules, whose cost grows
// with a value's length, are not run on it.
func plainPath(v string) bool {
	return strings.HasPrefix(v, "/") && !strings.ContainsAny(v, ":@=;, \t\n")
}

// InBase reports whether the base environment table names name.
func InBase(name string) bool {
	_, ok := baseRow(name)
	return ok
}

// baseRow is the row of the base table naming name: the first, in the
// table's order.
func baseRow(name string) (EnvRow, bool) {
	ix := baseIndex()
	i, ok := ix.names[name]
	if !ok {
		i = len(BaseEnv)
	}
	for _, p := range ix.prefixes {
		if p.row >= i {
			break
		}
		if strings.HasPrefix(name, p.prefix) {
			i, ok = p.row, true
			break
		}
	}
	if !ok {
		return EnvRow{}, false
	}
	return BaseEnv[i], true
}

// baseIndex is the base table indexed by name: a run asks it of every
// variable, and most are in no row, which a search of the table's 130
// names for each made a third of drawing the environment.
var baseIndex = sync.OnceValue(func() (ix envIndex) {
	ix.names = map[string]int{}
	for i, row := range BaseEnv {
		for _, n := range row.Names {
			if prefix, ok := strings.CutSuffix(n, "*"); ok {
				ix.prefixes = append(ix.prefixes, envPrefix{prefix, i})
			} else if _, seen := ix.names[n]; !seen {
				ix.names[n] = i
			}
		}
	}
	return ix
})

// envIndex finds the rows of BaseEnv naming a variable.
type envIndex struct {
	names    map[string]int // a name's first row
	prefixes []envPrefix    // in the table's order
}

type envPrefix struct {
	prefix string
	row    int
}

// MatchEnv reports whether pattern (a variable name, or a prefix ending in
// '*') names the variable name. Names are compared exactly: npm_config_x
// and NPM_CONFIG_X are two variables.
func MatchEnv(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return pattern == name
}

// MatchAny reports whether any of patterns names name.
func MatchAny(patterns []string, name string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return MatchEnv(p, name) })
}

// Environment is what a confined plugin, hook or build is given of
// environ ("NAME=value" entries, later ones winning): the entries granted
// names (patterns as MatchEnv reads them, whatever their value: the user
// named them), and the base table's entries that Secret does not hold for
// secrets (by name, and by value where the row says Values). Withheld lists the names of every other entry, sorted, each
// once; Secret says which of them the base table names but their value or
// name made secret.
func Environment(environ, granted []string) (env []string, withheld []string, secret []string) {
	last := map[string]int{}
	for i, kv := range environ {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" {
			last[name] = i
		}
	}
	for i, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || last[name] != i {
			continue
		}
		row, base := baseRow(name)
		switch {
		case MatchAny(granted, name):
			env = append(env, kv)
		case !base:
			withheld = append(withheld, name)
		case secretName(name) || row.Values && !plainPath(value) && secretValue(value, name, 0):
			withheld = append(withheld, name)
			secret = append(secret, name)
		default:
			env = append(env, kv)
		}
	}
	slices.Sort(withheld)
	slices.Sort(secret)
	return env, withheld, secret
}

// SetEnv returns environ with name set to value, replacing any entry.
func SetEnv(environ []string, name, value string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if n, _, _ := strings.Cut(kv, "="); n == name {
			continue
		}
		out = append(out, kv)
	}
	return append(out, name+"="+value)
}

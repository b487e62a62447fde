package fastrun

import (
	"strconv"
	"strings"
	"time"
)

// BuiltinWords are the words fledge's command tree takes first: a first
// word that is none of them is a plugin's command. cmd/internal/cli's
// TestBuiltinWordsAreTheTree keeps it equal to the tree's words (cobra's
// completion requests, __complete and __completeNoDesc, among them).
var BuiltinWords = map[string]bool{
	"__complete": true, "__completeNoDesc": true,
	"completion": true, "completions": true, "help": true, "mcp": true,
	"plugin": true, "plugins": true, "version": true,
}

// IsPluginCommand reports whether arg, the first word, names a plugin
// command: not a flag, nor one of fledge's own words.
func IsPluginCommand(arg string) bool {
	return arg != "" && !strings.HasPrefix(arg, "-") && !BuiltinWords[arg]
}

// IsNonInteractiveFlag reports whether arg is the global
// --non-interactive flag or its Rust alias --ni.
func IsNonInteractiveFlag(arg string) bool {
	return arg == "--ni" || arg == "--non-interactive"
}

// VersionLine is what --version prints.
func VersionLine(v string) string { return "fledge " + v + "\n" }

// VersionAsked reports whether the flags before the first word ask for
// fledge's version (--version, -v, or the Rust -V) next to nothing but
// --ni: help wins, as it does in cobra, and cobra reports any other flag.
// Words after them are not looked at, as cobra did not: `fledge -v
// plugins` printed the version.
func VersionAsked(args []string) bool {
	asked := false
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		switch {
		case a == "--version" || a == "-v" || a == "-V":
			asked = true
		case !IsNonInteractiveFlag(a):
			return false // --help, or a flag cobra reports
		}
	}
	return asked
}

// ParseDuration accepts a Go duration or a number of seconds.
func ParseDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(n * float64(time.Second)), nil
	}
	return time.ParseDuration(s)
}

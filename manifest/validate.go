package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode"

	"github.com/corvidlabs/fledge-go/internal/semver"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Severity says whether a Problem blocks installation.
type Severity string

// Problem severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Problem is one finding of Validate: the field it concerns, what is wrong,
// and how to fix it.
type Problem struct {
	Severity Severity `json:"severity"`
	Field    string   `json:"field"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`
}

func (p Problem) String() string {
	s := p.Field + ": " + p.Message
	if p.Fix != "" {
		s += " (" + p.Fix + ")"
	}
	return s
}

// Problems is a list of findings.
type Problems []Problem

// Errors returns the findings that block installation.
func (ps Problems) Errors() Problems { return ps.filter(SeverityError) }

// Warnings returns the findings that do not block installation.
func (ps Problems) Warnings() Problems { return ps.filter(SeverityWarning) }

func (ps Problems) filter(s Severity) Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}

// Err returns an *InvalidError holding the errors, or nil when there are none.
func (ps Problems) Err() error {
	if errs := ps.Errors(); len(errs) > 0 {
		return &InvalidError{Problems: errs}
	}
	return nil
}

// InvalidError reports a manifest that cannot be installed.
type InvalidError struct {
	Problems Problems
}

func (e *InvalidError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	if len(lines) == 1 {
		return "invalid plugin.toml: " + lines[0]
	}
	return "invalid plugin.toml:\n  " + strings.Join(lines, "\n  ")
}

// ErrUnsupportedProtocol is wrapped by errors about a protocol this fledge
// does not speak.
var ErrUnsupportedProtocol = errors.New("unsupported protocol")

// ProtocolError names a protocol this fledge does not speak.
type ProtocolError struct{ Protocol string }

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("plugin speaks protocol %q, but this fledge only speaks %q: upgrade fledge to use it", e.Protocol, ProtocolV1)
}

// Unwrap makes errors.Is(err, ErrUnsupportedProtocol) hold.
func (e *ProtocolError) Unwrap() error { return ErrUnsupportedProtocol }

// CheckProtocol returns a *ProtocolError for any protocol but none or fledge-v1.
func (m *Manifest) CheckProtocol() error {
	if m.Plugin.Protocol == "" || m.Plugin.Protocol == ProtocolV1 {
		return nil
	}
	return &ProtocolError{Protocol: m.Plugin.Protocol}
}

// ReservedCommands are fledge's own top-level commands; a plugin command of
// the same name could never be reached.
var ReservedCommands = map[string]bool{"plugins": true, "help": true, "completion": true, "version": true}

// KnownArgTypes are the argument types agents map to JSON Schema.
var KnownArgTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true}

// Validate checks everything that can be checked without the plugin's files.
func (m *Manifest) Validate() Problems {
	var ps Problems
	add := func(sev Severity, field, msg, fix string) {
		ps = append(ps, Problem{Severity: sev, Field: field, Message: msg, Fix: fix})
	}

	if msg := CheckName(m.Plugin.Name); msg != "" {
		add(SeverityError, "plugin.name", msg, "use letters, digits, '-', '_' or '.', starting with a letter or digit, e.g. \"fledge-plugin-hello\"")
	}
	switch {
	case m.Plugin.Version == "":
		add(SeverityError, "plugin.version", "is missing", "set a semantic version such as \"0.1.0\"")
	default:
		if _, err := semver.StrictNewVersion(m.Plugin.Version); err != nil {
			add(SeverityError, "plugin.version", fmt.Sprintf("%q is not a semantic version", m.Plugin.Version), "use MAJOR.MINOR.PATCH such as \"0.1.0\", without a leading v")
		}
	}
	if err := m.CheckProtocol(); err != nil {
		add(SeverityError, "plugin.protocol", err.Error(), "upgrade fledge, or declare protocol = \"fledge-v1\" or no protocol")
	}
	switch m.Plugin.Runtime {
	case "", "native":
	case RuntimeWasm:
	default:
		add(SeverityError, "plugin.runtime", fmt.Sprintf("unknown runtime %q", m.Plugin.Runtime), "use \"native\" (the default) or \"wasm\"")
	}
	if u := termsafe.FirstUnsafe(m.Plugin.Description, true); u != nil {
		add(SeverityWarning, "plugin.description", "contains "+u.String()+", which fledge shows escaped", "remove it")
	}

	if len(m.Plugin.LegacyCommands) > 0 {
		add(SeverityWarning, "plugin.commands", "[plugin.commands.*] tables are not read by fledge and name no binary", "declare each command as [[commands]] with name and binary")
	}
	if len(m.Commands) == 0 {
		add(SeverityWarning, "commands", "the plugin declares no [[commands]], so it adds nothing to run", "add a [[commands]] entry with name and binary")
	}
	seen := map[string]int{}
	folded := map[string]int{}
	for i, c := range m.Commands {
		f := fmt.Sprintf("commands[%d]", i)
		if c.Name != "" {
			f = fmt.Sprintf("commands[%d] (%s)", i, c.Name)
		}
		if msg := CheckName(c.Name); msg != "" {
			add(SeverityError, f+".name", msg, "use letters, digits, '-', '_' or '.', starting with a letter or digit")
		} else if ReservedCommands[c.Name] {
			add(SeverityError, f+".name", fmt.Sprintf("%q is one of fledge's own commands", c.Name), "choose another command name")
		}
		if j, dup := seen[c.Name]; dup && c.Name != "" {
			add(SeverityError, f+".name", fmt.Sprintf("duplicates commands[%d]", j), "give every command a distinct name")
		} else if j, dup := folded[strings.ToLower(c.Name)]; dup && c.Name != "" {
			// macOS and Windows fold case: both would be one file there.
			add(SeverityError, f+".name", fmt.Sprintf("%q differs only by case from commands[%d] (%q), the same command on macOS and Windows", c.Name, j, m.Commands[j].Name),
				"give every command a name that differs by more than case")
		} else {
			seen[c.Name] = i
			folded[strings.ToLower(c.Name)] = i
		}
		if msg := CheckBinaryPath(c.Binary); msg != "" {
			add(SeverityError, f+".binary", msg, "give a path relative to the plugin root and outside .git, such as \"bin/run\"")
		}
		validateArgs(f, c.Args, add)
		validateOutput(f, c, add)
	}

	for _, name := range HookNames {
		if msg := CheckCommand(m.Hooks.Get(name)); msg != "" {
			add(SeverityError, "hooks."+name, msg, "remove it: what fledge runs is shown byte-exact and whole, never cleaned or cut")
		}
	}

	for _, ci := range Table {
		if !m.Capabilities.KnownScope(ci.Name) {
			add(SeverityWarning, "capabilities."+string(ci.Name),
				fmt.Sprintf("unknown scope %q counts as %s, so only an explicit grant of %s approves it", m.Capabilities.Scope(ci.Name), ci.Unbounded, ci.Name),
				"use "+orQuoted(ci.Scopes))
		}
	}

	for i, e := range m.Capabilities.Environment {
		if msg := CheckEnvName(e); msg != "" {
			add(SeverityError, fmt.Sprintf("capabilities.environment[%d]", i), fmt.Sprintf("%q %s", e, msg),
				`list variable names ("GITHUB_TOKEN") or prefixes ending in '*' ("AWS_*")`)
		}
	}

	for _, k := range m.Unknown {
		add(SeverityWarning, k, "unknown key, ignored", "remove it or check its spelling")
	}
	return ps
}

func validateOutput(f string, c Command, add func(Severity, string, string, string)) {
	switch c.Output {
	case "", OutputText, OutputJSON:
	default:
		add(SeverityError, f+".output", fmt.Sprintf("unknown output %q", c.Output), `use "json" for a command that prints one JSON value, or leave it out for text`)
	}
	if c.OutputSchema == "" {
		return
	}
	if c.Output != OutputJSON {
		add(SeverityError, f+".output_schema", "is set but output is not \"json\"", `add output = "json", or remove output_schema`)
	}
	var schema map[string]any
	if err := json.Unmarshal([]byte(c.OutputSchema), &schema); err != nil {
		add(SeverityError, f+".output_schema", fmt.Sprintf("is not a JSON object: %v", err), `write the schema as JSON text, such as '{"type": "object"}'`)
	} else if schema["type"] != "object" {
		add(SeverityError, f+".output_schema", `does not say "type": "object"`, "agents take structured content as an object: describe an object")
	}
}

func validateArgs(f string, args []Arg, add func(Severity, string, string, string)) {
	names := map[string]bool{}
	optional := false
	for j, a := range args {
		af := fmt.Sprintf("%s.args[%d]", f, j)
		if a.Name == "" {
			add(SeverityError, af+".name", "is missing", "name every argument")
		} else if names[a.Name] {
			add(SeverityError, af+".name", fmt.Sprintf("duplicate argument %q", a.Name), "give every argument a distinct name")
		}
		names[a.Name] = true
		if !KnownArgTypes[a.Type] {
			add(SeverityWarning, af+".type", fmt.Sprintf("unknown type %q", a.Type), "use string, integer, number or boolean")
		}
		if a.Required && optional {
			add(SeverityWarning, af+".required", "a required argument follows an optional one", "list required arguments first: agents pass them in order")
		}
		if !a.Required {
			optional = true
		}
	}
}

// CheckName returns why name is unsafe as a plugin or command name, or "".
// Names become directory names and argv words, so they may not hold path
// separators, start with '-' or '.', or carry control characters.
func CheckName(name string) string {
	switch {
	case name == "":
		return "is missing"
	case len(name) > 100:
		return "is longer than 100 characters"
	case strings.ContainsAny(name, `/\`):
		return fmt.Sprintf("%q contains a path separator", name)
	case strings.HasPrefix(name, "-"):
		return fmt.Sprintf("%q starts with '-', which reads as a flag", name)
	case strings.HasPrefix(name, "."):
		return fmt.Sprintf("%q starts with '.', which hides it and can name '.' or '..'", name)
	case termsafe.FirstUnsafe(name, false) != nil:
		return fmt.Sprintf("%q contains %s", name, termsafe.FirstUnsafe(name, false))
	}
	for _, r := range name {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.')) {
			return fmt.Sprintf("%q contains %q; only ASCII letters, digits, '-', '_' and '.' are allowed", name, r)
		}
	}
	return ""
}

// CheckBinaryPath returns why a command's binary path is unsafe, or "". It
// is a lexical check; CheckBinaries resolves symlinks against the tree.
func CheckBinaryPath(p string) string {
	switch {
	case p == "":
		return "is missing"
	case termsafe.FirstUnsafe(p, false) != nil:
		return fmt.Sprintf("%q contains %s, which a terminal would hide or obey", p, termsafe.FirstUnsafe(p, false))
	case filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`):
		return fmt.Sprintf("%q is absolute; binaries must live inside the plugin", p)
	case !filepath.IsLocal(filepath.FromSlash(p)):
		return fmt.Sprintf("%q leaves the plugin directory", p)
	case InGitDir(p):
		return fmt.Sprintf("%q lies in a .git directory, which fledge does not hash or verify", p)
	}
	return ""
}

// CheckBinaries verifies, against the plugin tree at root, that every
// command's binary exists, is a regular file, stays inside root after
// resolving symlinks, and (on Unix) is executable.
func (m *Manifest) CheckBinaries(root string) Problems {
	var ps Problems
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Problems{{Severity: SeverityError, Field: "plugin", Message: fmt.Sprintf("cannot resolve plugin root: %v", err)}}
	}
	for i, c := range m.Commands {
		f := fmt.Sprintf("commands[%d] (%s).binary", i, c.Name)
		if CheckBinaryPath(c.Binary) != "" {
			continue // reported by Validate
		}
		if msg, fix := checkBinary(realRoot, c.Binary, m.IsWasm()); msg != "" {
			ps = append(ps, Problem{Severity: SeverityError, Field: f, Message: msg, Fix: fix})
		}
	}
	return ps
}

func checkBinary(realRoot, rel string, wasm bool) (msg, fix string) {
	p := filepath.Join(realRoot, filepath.FromSlash(rel))
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Sprintf("%q does not exist", rel), "commit it, or add a build hook that creates it"
		}
		return fmt.Sprintf("%q: %v", rel, err), ""
	}
	if !Within(realRoot, resolved) {
		return fmt.Sprintf("%q resolves outside the plugin directory", rel), "point it at a file inside the plugin"
	}
	if r, err := filepath.Rel(realRoot, resolved); err != nil || InGitDir(r) {
		return fmt.Sprintf("%q resolves into a .git directory (%s), which fledge does not hash or verify", rel, r), "point it at a file outside .git"
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return fmt.Sprintf("%q: %v", rel, err), ""
	}
	if !fi.Mode().IsRegular() {
		return fmt.Sprintf("%q is not a regular file", rel), "point it at an executable file"
	}
	if !wasm && runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return fmt.Sprintf("%q is not executable", rel), "chmod +x it and commit the mode"
	}
	return "", ""
}

// Within reports whether path is root or lies below it. Both must be clean
// absolute paths with symlinks already resolved.
func Within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && filepath.IsLocal(rel) || rel == "."
}

// MaxCommandLen bounds a command fledge runs through the shell, so that
// the approval screen shows it whole (13 rows of an 80-column terminal).
// Real hooks are a line or two; a longer script belongs in a file in the
// plugin that the hook runs.
const MaxCommandLen = 1024

// CheckCommand returns why a command that fledge runs through the shell (a
// hook, a build command) cannot be shown byte-exact and whole, or "".
// Newlines and tabs are allowed (they are shown escaped); anything the
// sanitiser would alter is not, nor padding (termsafe.FirstPadding) or a
// command past MaxCommandLen: a string that a terminal would show
// differently from what runs, or in part, could hide code from the
// approval it needs.
func CheckCommand(cmd string) string {
	u := termsafe.FirstUnsafe(cmd, true)
	switch {
	case u != nil && u.Rune == '\r' && strings.HasPrefix(cmd[u.Offset+1:], "\n"):
		return "contains " + u.String() + ": plugin.toml has Windows line endings inside a multi-line string; save it with LF line endings"
	case u != nil:
		return "contains " + u.String() + ", which a terminal would hide or obey, so what is shown would not be what runs"
	}
	if p := termsafe.FirstPadding(cmd); p != nil {
		return "contains " + p.String() + ", which would push what runs out of sight on the approval screen"
	}
	if len(cmd) > MaxCommandLen {
		return fmt.Sprintf("is %d bytes long, more than the %d the approval screen shows whole; put the script in a file in the plugin and run that", len(cmd), MaxCommandLen)
	}
	return ""
}

// orQuoted lists words quoted, the last after "or": "a", "b" or "c".
func orQuoted(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// FileName is the manifest's name at a plugin's root.
const FileName = "plugin.toml"

// MaxSize bounds how much of a plugin.toml is read. Real manifests are a few
// KiB; anything near this is hostile.
const MaxSize = 256 << 10

// ProtocolV1 is the only structured protocol this fledge speaks.
const ProtocolV1 = "fledge-v1"

// Manifest is a parsed plugin.toml.
type Manifest struct {
	Plugin       Plugin       `toml:"plugin"`
	Commands     []Command    `toml:"commands"`
	Hooks        Hooks        `toml:"hooks"`
	Capabilities Capabilities `toml:"capabilities"`

	// Unknown lists keys fledge does not read (dotted paths), sorted. They
	// are tolerated and reported as warnings.
	Unknown []string `toml:"-"`
}

// Plugin is the [plugin] table.
type Plugin struct {
	Name        string `toml:"name"`
	Version     string `toml:"version"`
	Description string `toml:"description"`
	Author      string `toml:"author"`
	// Protocol is "fledge-v1" for plugins that speak the structured
	// protocol, empty for plugins that run with inherited stdio.
	Protocol string `toml:"protocol"`
	// Runtime is "native" (the default) or "wasm".
	Runtime          string   `toml:"runtime"`
	License          string   `toml:"license"`
	Repository       string   `toml:"repository"`
	Keywords         []string `toml:"keywords"`
	MinFledgeVersion string   `toml:"min_fledge_version"`
	// LegacyCommands holds [plugin.commands.<name>] tables that some
	// published plugins use. fledge does not run them (they name no
	// binary); they are read so validate can say so.
	LegacyCommands map[string]LegacyCommand `toml:"commands"`
}

// LegacyCommand is a [plugin.commands.<name>] table.
type LegacyCommand struct {
	Description string `toml:"description"`
	Usage       string `toml:"usage"`
}

// Command is one [[commands]] entry: a subcommand of fledge that runs binary.
type Command struct {
	Name        string `toml:"name"`
	Description string `toml:"description"`
	// Binary is a path relative to the plugin's root.
	Binary string `toml:"binary"`
	// Args describes the positional arguments, in argv order, for agents
	// that call the command as a tool.
	Args []Arg `toml:"args"`
	// Dangerous marks commands with side effects worth confirming.
	Dangerous bool `toml:"dangerous"`
	// Output says what the command prints for agents: OutputText (the
	// default) or OutputJSON, one JSON value, which an agent gets as
	// structured content when it is an object.
	Output string `toml:"output,omitempty"`
	// OutputSchema, with OutputJSON, is the JSON Schema of what the
	// command prints, as JSON text: an object schema ("type": "object").
	OutputSchema string `toml:"output_schema,omitempty"`
}

// What a command prints (Command.Output).
const (
	OutputText = "text"
	OutputJSON = "json"
)

// Arg is one typed positional argument of a command.
type Arg struct {
	Name        string `toml:"name" json:"name"`
	Type        string `toml:"type" json:"type"`
	Required    bool   `toml:"required" json:"required"`
	Description string `toml:"description" json:"description,omitempty"`
}

// Parse decodes a plugin.toml and lists its unknown keys. It does not
// validate beyond TOML syntax, field types and the MaxSize and MaxKeys
// bounds; see Validate.
func Parse(data []byte) (*Manifest, error) { return parse(data, true) }

// Decode is Parse without the unknown-key report (Unknown stays nil), for
// callers that only read what fledge understands, such as the runner on
// every run.
func Decode(data []byte) (*Manifest, error) { return parse(data, false) }

func parse(data []byte, report bool) (*Manifest, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("plugin.toml is %d bytes, more than the %d allowed: %w", len(data), MaxSize, ErrTooLarge)
	}
	// A leading byte order mark is not TOML, but the Rust fledge's reader
	// skips it, so manifests saved by some editors work there.
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	keys := scanKeys(data, report)
	if keys.keys > MaxKeys {
		return nil, fmt.Errorf("plugin.toml holds more than %d keys and tables (real manifests hold a few dozen): %w", MaxKeys, ErrTooLarge)
	}
	var m Manifest
	if err := toml.Unmarshal(data, &m); err != nil {
		if problems := typeErrors(data); len(problems) > 0 {
			return nil, &TypeError{Problems: problems}
		}
		return nil, describeTOMLError(err)
	}
	if keys.folded != "" {
		return nil, &FoldedKeyError{Key: keys.folded, Canonical: keys.canonical}
	}
	if report {
		m.Unknown = keys.sorted()
	}
	return &m, nil
}

// Load reads and parses dir/plugin.toml. The manifest must be a regular file
// (not a symlink, device or directory) and is read through a bounded reader.
func Load(dir string) (*Manifest, error) {
	data, err := ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// ErrNoManifest is returned when a directory has no plugin.toml.
var ErrNoManifest = errors.New("no plugin.toml")

// ErrNotRegular is wrapped when plugin.toml is a symlink, directory or
// device: a manifest must be a plain file inside the plugin.
var ErrNotRegular = errors.New("plugin.toml is not a regular file")

// ReadFile reads a manifest file safely: it refuses symlinks and anything
// that is not a regular file (without blocking on a named pipe or a
// device), and reads at most MaxSize bytes.
func ReadFile(path string) ([]byte, error) {
	data, err := bounded.ReadFileNoLink(path, MaxSize)
	var nr *bounded.NotRegularError
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s: %w: a plugin needs a plugin.toml at its root", filepath.Dir(path), ErrNoManifest)
	case errors.As(err, &nr):
		kind := nr.Kind
		if kind == "" {
			kind = "not a plain file"
		}
		return nil, fmt.Errorf("%s: %w but %s: commit plugin.toml itself, not a link to it", path, ErrNotRegular, kind)
	case errors.Is(err, bounded.ErrTooLarge):
		return nil, fmt.Errorf("%s is larger than %d bytes: %w", path, MaxSize, ErrTooLarge)
	}
	return nil, err
}

// Command returns the command with the given name.
func (m *Manifest) Command(name string) (Command, bool) {
	for _, c := range m.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// CommandNames lists the commands in manifest order.
func (m *Manifest) CommandNames() []string {
	out := make([]string, 0, len(m.Commands))
	for _, c := range m.Commands {
		out = append(out, c.Name)
	}
	return out
}

// IsProtocol reports whether the plugin speaks fledge-v1.
func (m *Manifest) IsProtocol() bool { return m.Plugin.Protocol == ProtocolV1 }

// The runtimes: RuntimeWasm plugins run in fledge's wasm sandbox,
// RuntimeNative ones (the default) as programs of their own.
const (
	RuntimeWasm   = "wasm"
	RuntimeNative = "native"
)

// IsWasm reports whether the plugin runs in the wasm sandbox: its own code
// is then confined to what its grants allow, not only what it asks fledge.
func (m *Manifest) IsWasm() bool { return m.Plugin.Runtime == RuntimeWasm }

// RuntimeName is the runtime as the Rust fledge reports it: "wasm" or
// "native".
func (m *Manifest) RuntimeName() string {
	if m.IsWasm() {
		return RuntimeWasm
	}
	return RuntimeNative
}

// ErrTooLarge is wrapped when plugin.toml exceeds MaxSize.
var ErrTooLarge = errors.New("plugin.toml is too large")

// SyntaxError reports a plugin.toml that is not valid TOML, or whose values
// have the wrong types.
type SyntaxError struct {
	Line, Column int // 0 when unknown
	Msg          string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("plugin.toml: line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return "plugin.toml: " + e.Msg
}

// TypeError reports values whose TOML type does not fit their key
// (exec = "yes"), every one of them, each named by its key.
type TypeError struct {
	Problems []string // "capabilities.exec: want true or false, not a string"
}

func (e *TypeError) Error() string {
	return "plugin.toml: " + strings.Join(e.Problems, "; ")
}

// FoldedKeyError reports a key that names a field only when case is
// ignored (BUILD for build). go-toml matches field names that way; the
// Rust fledge does not, and ignores the key. Accepting it would make the
// two run different hooks from one manifest, so Parse refuses it. Decode,
// the runner's path over an installed (so already parsed) manifest, does
// not look.
type FoldedKeyError struct {
	Key, Canonical string
}

func (e *FoldedKeyError) Error() string {
	return fmt.Sprintf("plugin.toml: key %s differs from %s only in case: TOML keys are case-sensitive, so the Rust fledge ignores it while fledge would read it; write %s",
		e.Key, e.Canonical, e.Canonical)
}

func describeTOMLError(err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return &SyntaxError{Line: row, Column: col, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return &SyntaxError{Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

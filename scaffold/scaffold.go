package scaffold

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Languages a plugin can be created in.
const (
	LangShell = "sh"
	LangGo    = "go"
	// LangWasm is Go built for fledge's wasm sandbox (GOOS=wasip1).
	LangWasm = "wasm"
)

// DefaultDescription describes the example when no description is given.
const DefaultDescription = "Says hello through the fledge-v1 protocol"

// Errors of Create that are the caller's to fix.
var (
	// ErrInvalidName is wrapped when the plugin name cannot be used.
	ErrInvalidName = errors.New("invalid plugin name")
	// ErrInvalidDescription is wrapped when the description cannot go
	// into plugin.toml as one line of text.
	ErrInvalidDescription = errors.New("invalid description")
	// ErrUnknownLang is wrapped when the language is not one create knows.
	ErrUnknownLang = errors.New("unknown language")
)

// Options describe the plugin to create.
type Options struct {
	// Name is the command name; the plugin is fledge-plugin-<Name>.
	Name string
	Dir  string
	Lang string
	// Description goes into plugin.toml and the README (default
	// DefaultDescription).
	Description string
}

// CheckDescription reports what keeps d from being a plugin's
// description: it must be one line of printable text.
func CheckDescription(d string) error {
	if u := termsafe.FirstUnsafe(d, false); u != nil {
		return fmt.Errorf("%w: it holds %s; use one line of plain text", ErrInvalidDescription, u)
	}
	if len(d) > 1024 {
		return fmt.Errorf("%w: %d bytes, more than 1024", ErrInvalidDescription, len(d))
	}
	return nil
}

// tomlString quotes s as a TOML basic string (s holds no control
// characters: CheckDescription).
func tomlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

type file struct {
	path string
	mode os.FileMode
	body string
}

// PluginName is the plugin a command name makes: fledge-plugin-<name>
// (a name already in that form is kept), which is also its directory's
// name by default.
func PluginName(name string) string {
	return "fledge-plugin-" + strings.TrimPrefix(name, "fledge-plugin-")
}

// Create writes the plugin into o.Dir, which must not exist or be empty.
// It returns the files written.
func Create(o Options) ([]string, error) {
	if msg := manifest.CheckName(o.Name); msg != "" {
		return nil, fmt.Errorf("%w: %s", ErrInvalidName, msg)
	}
	if manifest.ReservedCommands[o.Name] {
		return nil, fmt.Errorf("%w: %q is one of fledge's own commands", ErrInvalidName, o.Name)
	}
	plugin := PluginName(o.Name)
	o.Name = strings.TrimPrefix(plugin, "fledge-plugin-")
	if o.Description == "" {
		o.Description = DefaultDescription
	}
	if err := CheckDescription(o.Description); err != nil {
		return nil, err
	}
	var files []file
	switch o.Lang {
	case LangShell, "":
		files = shellFiles
	case LangGo:
		files = goFiles
	case LangWasm:
		files = wasmFiles()
	default:
		return nil, fmt.Errorf("%w %q: use sh, go or wasm", ErrUnknownLang, o.Lang)
	}
	if entries, err := os.ReadDir(o.Dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s already exists and is not empty", o.Dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	fill := strings.NewReplacer("%PLUGIN%", plugin, "%NAME%", o.Name,
		"%DESC_TOML%", tomlString(o.Description), "%DESC%", o.Description)
	var written []string
	for _, f := range append(commonFiles, files...) {
		body := fill.Replace(f.body)
		p := filepath.Join(o.Dir, strings.ReplaceAll(f.path, "NAME", o.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(p, []byte(body), f.mode); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

package scaffold

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/corvidlabs/fledge-go/manifest"
)

// Languages a plugin can be created in.
const (
	LangShell = "sh"
	LangGo    = "go"
	// LangWasm is Go built for fledge's wasm sandbox (GOOS=wasip1).
	LangWasm = "wasm"
)

// ErrInvalidName is wrapped when the plugin name cannot be used.
var ErrInvalidName = errors.New("invalid plugin name")

// Options describe the plugin to create.
type Options struct {
	// Name is the command name; the plugin is fledge-plugin-<Name>.
	Name string
	Dir  string
	Lang string
}

type file struct {
	path string
	mode os.FileMode
	body string
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
	o.Name = strings.TrimPrefix(o.Name, "fledge-plugin-")
	var files []file
	switch o.Lang {
	case LangShell, "":
		files = shellFiles
	case LangGo:
		files = goFiles
	case LangWasm:
		files = wasmFiles
	default:
		return nil, fmt.Errorf("%w: unknown language %q: use sh, go or wasm", ErrInvalidName, o.Lang)
	}
	if entries, err := os.ReadDir(o.Dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s already exists and is not empty", o.Dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	fill := strings.NewReplacer("%PLUGIN%", "fledge-plugin-"+o.Name, "%NAME%", o.Name)
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

package lockfile

import (
	"bytes"
	"cmp"
	"encoding/json"

	"github.com/corvidlabs/fledge-go/internal/derived"
)

// Installed is what shell completion, help and "did you mean" need to know
// of the installed plugins: their names and their commands, nothing more.
type Installed struct {
	// Plugins are the installed plugins' names, in file order.
	Plugins []string
	// Commands are the commands fledge <command> runs, each once, with
	// the plugin that provides it (the first in the file, as CommandOwner
	// decides), in file order. A disabled plugin's commands are not
	// among them.
	Commands []InstalledCommand
}

// InstalledCommand is one command of Installed.
type InstalledCommand struct {
	Name string
	// Plugin is the name of the plugin that provides it.
	Plugin string
	// Description is the command's description as recorded at install
	// (raw: callers sanitise it for a terminal), or the plugin's when the
	// command has none.
	Description string
}

// Installed lists the installed plugins and commands. Like CommandOwner it
// reads the command index when plugins.toml has not changed since it was
// built, decoding only names and descriptions; otherwise it decodes the
// file (reporting its errors) and rebuilds the index. Completion runs it on
// every TAB.
func (s *Store) Installed(indexPath string) (*Installed, error) {
	if d, ok := derived.DigestFile(s.path, MaxSize); ok {
		if body, ok := derived.New(indexPath, indexKind, d).Read(); ok {
			if in, ok := installedFromIndex(body); ok {
				return in, nil
			}
		}
	}
	data, err := s.Read()
	if err != nil {
		return nil, err
	}
	f, err := s.Decode(data)
	if err != nil {
		return nil, err
	}
	if body, err := buildIndex(f); err == nil && data != nil {
		derived.New(indexPath, indexKind, derived.Sum(data)).Put(body)
	}
	return f.Installed(), nil
}

// Installed is the listing of f itself.
func (f *File) Installed() *Installed {
	in := &Installed{Plugins: []string{}, Commands: []InstalledCommand{}}
	seen, named := map[string]bool{}, map[string]bool{}
	for i := range f.Plugins {
		p := &f.Plugins[i]
		if !named[p.Name] {
			named[p.Name] = true
			in.Plugins = append(in.Plugins, p.Name)
		}
		for _, c := range p.Commands {
			if seen[c] {
				continue
			}
			seen[c] = true
			if p.IsDisabled() {
				// Still owned (no other plugin's command of that name
				// shows in its place), but offered nowhere.
				continue
			}
			d := p.Description
			for _, cd := range p.CommandDetails {
				if cd.Name == c {
					d = cmp.Or(cd.Description, p.Description)
					break
				}
			}
			in.Commands = append(in.Commands, InstalledCommand{Name: c, Plugin: p.Name, Description: d})
		}
	}
	return in
}

// installedFromIndex reads the listing line of an index body; ok is false
// when it cannot be used.
func installedFromIndex(body []byte) (*Installed, bool) {
	rest, ok := bytes.CutPrefix(body, []byte(listingPrefix))
	if !ok {
		return nil, false
	}
	line, _, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil, false
	}
	var in Installed
	if err := json.Unmarshal(line, &in); err != nil || in.Plugins == nil || in.Commands == nil {
		return nil, false
	}
	return &in, true
}

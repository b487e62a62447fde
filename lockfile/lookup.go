package lockfile

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNotInstalled is wrapped by lookups of a plugin that is not installed.
var ErrNotInstalled = errors.New("not installed")

// AmbiguousError reports a short name that matches several plugins.
type AmbiguousError struct {
	Name       string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches several plugins (%s): use the full name", e.Name, strings.Join(e.Candidates, ", "))
}

// Index returns the position of the plugin with exactly this name, or -1.
func (f *File) Index(name string) int {
	for i := range f.Plugins {
		if f.Plugins[i].Name == name {
			return i
		}
	}
	return -1
}

// Get returns the plugin with exactly this name.
func (f *File) Get(name string) (*Plugin, bool) {
	if i := f.Index(name); i >= 0 {
		return &f.Plugins[i], true
	}
	return nil, false
}

// Resolve finds a plugin by its name or a short form of it, as long as
// that is unambiguous: a leading "fledge-plugin-" or "fledge-" removed from
// both ("deps", "fledge-deps" for fledge-plugin-deps), or just "fledge-"
// removed, as the Rust fledge looks names up ("plugin-deps").
func (f *File) Resolve(name string) (*Plugin, error) {
	if p, ok := f.Get(name); ok {
		return p, nil
	}
	short := ShortName(name)
	var hits []int
	for i := range f.Plugins {
		if n := f.Plugins[i].Name; ShortName(n) == short || n == "fledge-"+name {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 0:
		return nil, fmt.Errorf("plugin %q: %w", name, ErrNotInstalled)
	case 1:
		return &f.Plugins[hits[0]], nil
	}
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = f.Plugins[h].Name
	}
	sort.Strings(names)
	return nil, &AmbiguousError{Name: name, Candidates: names}
}

// CommandOwner returns the plugin that provides command, if any.
func (f *File) CommandOwner(command string) (*Plugin, bool) {
	for i := range f.Plugins {
		for _, c := range f.Plugins[i].Commands {
			if c == command {
				return &f.Plugins[i], true
			}
		}
	}
	return nil, false
}

// CaseTwin returns an installed plugin whose name differs from name only by
// case ("foo" for "Foo"). On case-insensitive filesystems (macOS, Windows)
// the two would share plugins/<name>, so install refuses such a pair on
// every OS.
func (f *File) CaseTwin(name string) (*Plugin, bool) {
	for i := range f.Plugins {
		if n := f.Plugins[i].Name; n != name && strings.EqualFold(n, name) {
			return &f.Plugins[i], true
		}
	}
	return nil, false
}

// CommandCaseTwin returns the plugin providing a command whose name differs
// from command only by case, and that spelling: the two commands' links in
// the bin directory would be one file on a case-insensitive filesystem.
func (f *File) CommandCaseTwin(command string) (p *Plugin, spelling string, ok bool) {
	for i := range f.Plugins {
		for _, c := range f.Plugins[i].Commands {
			if c != command && strings.EqualFold(c, command) {
				return &f.Plugins[i], c, true
			}
		}
	}
	return nil, "", false
}

// Put replaces the entry with p's name, or appends p.
func (f *File) Put(p Plugin) {
	if i := f.Index(p.Name); i >= 0 {
		f.Plugins[i] = p
		return
	}
	f.Plugins = append(f.Plugins, p)
}

// Remove deletes the entry with this name and reports whether it existed.
func (f *File) Remove(name string) bool {
	i := f.Index(name)
	if i < 0 {
		return false
	}
	f.Plugins = append(f.Plugins[:i], f.Plugins[i+1:]...)
	return true
}

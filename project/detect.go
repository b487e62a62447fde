package project

import (
	"fmt"
	"path/filepath"
)

// Info describes the directory fledge runs in: what plugins receive as
// init.project (without its git state).
type Info struct {
	// Name is Root's base name, or "unknown" for a filesystem root, as
	// Rust's file_name() gives.
	Name string
	// Root is the directory itself with symlinks resolved, as the Rust
	// fledge's current_dir() reports it.
	Root string
	// Language is Rust's label for the directory (Generic when no marker
	// is present).
	Language string
	// Languages lists every label whose marker is present, in Rust's
	// order; never nil. A directory with Cargo.toml and package.json is
	// "rust", with languages ["rust", "node"].
	Languages []string
}

// Detect describes dir. It fails only when dir cannot be resolved (it does
// not exist or is not accessible), where the Rust fledge sends no project.
func Detect(dir string) (Info, error) {
	if dir == "" {
		return Info{}, fmt.Errorf("project: no directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Info{}, fmt.Errorf("project: %w", err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Info{}, fmt.Errorf("project: %w", err)
	}
	name := filepath.Base(root)
	if filepath.Dir(root) == root {
		name = "unknown"
	}
	langs := Languages(root)
	lang := Generic
	if len(langs) > 0 {
		lang = langs[0]
	}
	return Info{Name: name, Root: root, Language: lang, Languages: langs}, nil
}

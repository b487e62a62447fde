package runner

import (
	"os"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/runner/protocol"
)

// Project is the project a plugin runs in.
type Project struct {
	Name     string
	Root     string // real path, symlinks resolved
	Language string
}

// projectMarkers make a directory a project root: the nearest ancestor of
// the working directory holding one of them wins.
var projectMarkers = []string{"fledge.toml", ".git"}

// languageMarkers name a project's language from files in its root, first
// match wins. They also mark a project root when no ancestor has a
// projectMarker.
var languageMarkers = []struct{ file, lang string }{
	{"Cargo.toml", "rust"},
	{"go.mod", "go"},
	{"package.json", "node"},
	{"Package.swift", "swift"},
	{"pyproject.toml", "python"},
	{"setup.py", "python"},
	{"requirements.txt", "python"},
	{"Gemfile", "ruby"},
	{"pom.xml", "java"},
	{"build.gradle", "java"},
	{"build.gradle.kts", "kotlin"},
	{"composer.json", "php"},
	{"mix.exs", "elixir"},
	{"CMakeLists.txt", "cpp"},
	{"Makefile", "make"},
}

// DetectProject walks up from cwd to the nearest directory holding
// fledge.toml or .git (failing that, the nearest with a language manifest
// such as go.mod or Cargo.toml) and describes it. The walk stops below the
// user's home directory and the filesystem root: neither is ever taken as
// a project, so a dotfiles repository in $HOME does not make every
// directory under it one project. It returns nil outside a project.
func DetectProject(cwd, userHome string) *Project {
	real, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return nil
	}
	stop := map[string]bool{}
	if userHome != "" {
		if h, err := filepath.EvalSymlinks(userHome); err == nil {
			stop[h] = true
		}
	}
	root := findUp(real, stop, func(dir string) bool {
		for _, m := range projectMarkers {
			if exists(filepath.Join(dir, m)) {
				return true
			}
		}
		return false
	})
	if root == "" {
		root = findUp(real, stop, func(dir string) bool { return languageOf(dir) != "" })
	}
	if root == "" {
		return nil
	}
	lang := languageOf(root)
	if lang == "" {
		lang = "unknown"
	}
	return &Project{Name: filepath.Base(root), Root: root, Language: lang}
}

func findUp(dir string, stop map[string]bool, match func(string) bool) string {
	for {
		if stop[dir] || filepath.Dir(dir) == dir {
			return ""
		}
		if match(dir) {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}

func languageOf(dir string) string {
	for _, m := range languageMarkers {
		if exists(filepath.Join(dir, m.file)) {
			return m.lang
		}
	}
	return ""
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// wire converts p to the init message's form.
func (p *Project) wire(git *protocol.Git) *protocol.Project {
	if p == nil {
		return nil
	}
	return &protocol.Project{Name: p.Name, Root: p.Root, Language: p.Language, Git: git}
}

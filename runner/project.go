package runner

import (
	"path/filepath"

	"github.com/go-git/go-git/v5"

	"github.com/corvidlabs/fledge-go/project"
	"github.com/corvidlabs/fledge-go/runner/protocol"
)

// detectProject describes the directory fledge runs in (package project
// owns detection), or nil when it cannot be resolved, where the Rust
// fledge sends "project": null.
func detectProject(cwd string) *project.Info {
	if cwd == "" {
		return nil
	}
	p, err := project.Detect(cwd)
	if err != nil {
		return nil
	}
	return &p
}

// wireProject converts p and its repository (nil outside one) to the init
// message's form: Rust's keys (name, root, language, git) and fledge's
// beside them (languages, git.root).
func wireProject(p *project.Info, r *git.Repository) *protocol.Project {
	if p == nil {
		return nil
	}
	w := &protocol.Project{Name: p.Name, Root: p.Root, Language: p.Language, Languages: p.Languages}
	if r != nil {
		w.Git = gitState(r)
		w.Git.Root = worktreeRoot(r)
	}
	return w
}

// worktreeRoot is the top level of r's work tree with symlinks resolved,
// or "" for a bare repository.
func worktreeRoot(r *git.Repository) string {
	wt, err := r.Worktree()
	if err != nil {
		return ""
	}
	return realOrAbs(filepath.Clean(wt.Filesystem.Root()))
}

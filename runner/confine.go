package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/manifest"
)

// confinement decides where exec commands may run.
//
// The allowed roots are the project root and the plugin's own directory
// (both with symlinks resolved). Outside a project, the working directory
// takes the project's place, unless it is the filesystem root, the user's
// home directory or one of its ancestors, or inside FLEDGE_HOME: then only
// the plugin's directory is allowed. Nothing inside FLEDGE_HOME but the
// plugin's own directory is ever allowed, whatever the roots.
//
// A request's cwd is relative to the default directory: the project root,
// else the allowed working directory, else the plugin's directory.
type confinement struct {
	roots  []string
	base   string
	plugin string
	state  string // FLEDGE_HOME, resolved
}

func newConfinement(project *Project, cwd, pluginRoot, fledgeHome, userHome string) *confinement {
	c := &confinement{plugin: pluginRoot, state: realOrAbs(fledgeHome)}
	var work string
	if project != nil && c.allowedRoot(project.Root, userHome) {
		work = project.Root
	} else if cwd != "" {
		if real, err := filepath.EvalSymlinks(cwd); err == nil && c.allowedRoot(real, userHome) {
			work = real
		}
	}
	if work != "" {
		c.roots = append(c.roots, work)
		c.base = work
	} else {
		c.base = pluginRoot
	}
	c.roots = append(c.roots, pluginRoot)
	return c
}

// allowedRoot refuses directories that would allow too much.
func (c *confinement) allowedRoot(dir, userHome string) bool {
	if dir == "" || filepath.Dir(dir) == dir {
		return false
	}
	if userHome != "" {
		if h := realOrAbs(userHome); manifest.Within(dir, h) {
			return false // $HOME itself or an ancestor of it
		}
	}
	if manifest.Within(c.state, dir) {
		return false
	}
	return true
}

// resolve returns the real directory for a request's cwd, or why it is
// refused.
func (c *confinement) resolve(cwd string) (string, error) {
	p := cwd
	switch {
	case p == "":
		p = c.base
	case !filepath.IsAbs(p):
		p = filepath.Join(c.base, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("exec cwd %q does not exist or is not accessible", cwd)
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("exec cwd %q is not a directory", cwd)
	}
	if manifest.Within(c.state, real) && !manifest.Within(c.plugin, real) {
		return "", errors.New("exec cwd is inside fledge's own state, outside the plugin's directory")
	}
	for _, r := range c.roots {
		if manifest.Within(r, real) {
			return real, nil
		}
	}
	return "", fmt.Errorf("exec cwd %q escapes the project and plugin directories", cwd)
}

func realOrAbs(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

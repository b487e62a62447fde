package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/manifest"
)

// confinement decides where exec commands may run: what counts as inside
// the project for a plugin.
//
// The default working directory is the directory fledge runs in, as under
// the Rust fledge; a relative cwd is relative to it. A request's directory
// must lie, after resolving symlinks, in one of:
//
//   - the directory fledge runs in (as Rust allows);
//   - the top level of the git work tree holding it, so a plugin run from
//     a monorepo's svc/ may still act on the repository (Rust refuses
//     this; fledge allows it because the repository is the project the
//     user works in). A work tree that is the user's home or an ancestor
//     of it (a dotfiles repository) does not count;
//   - the plugin's own directory.
//
// Nothing inside FLEDGE_HOME but the plugin's own directory is ever
// allowed, whatever the roots: fledge's state is not a plugin's to touch.
// The confinement catches a plugin's mistakes, not a hostile plugin: a
// command granted exec can cd anywhere itself.
type confinement struct {
	roots  []string
	base   string
	plugin string
	state  string // FLEDGE_HOME, resolved
}

// newConfinement confines exec to runDir (the real directory fledge runs
// in, "" when unknown), the git work tree gitRoot ("" outside one) and the
// plugin's root.
func newConfinement(runDir, gitRoot, pluginRoot, fledgeHome, userHome string) *confinement {
	c := &confinement{plugin: pluginRoot, state: realOrAbs(fledgeHome), base: runDir}
	if runDir == "" {
		c.base = pluginRoot
	} else {
		c.roots = append(c.roots, runDir)
	}
	if gitRoot != "" && !(userHome != "" && manifest.Within(gitRoot, realOrAbs(userHome))) {
		c.roots = append(c.roots, gitRoot)
	}
	c.roots = append(c.roots, pluginRoot)
	return c
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
	return "", fmt.Errorf("exec cwd %q escapes the directory fledge runs in, its git work tree and the plugin's directory", cwd)
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

package gitstate

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The one-process path. Open's full inspection asks git three questions
// before the status (where the work tree is, what the repository's config
// would have it execute, which submodules are checked out): three more
// processes in series with the plugin's start. For the repositories
// nearly every run is in, those answers are in a few small files that
// fledge reads itself; git is then asked once, `git status --porcelain=v2
// --branch`. Everything the path cannot read with certainty sends Open
// back to the full inspection, so the answers stay git's own and no
// repository can have fledge run its commands:
//
//   - a variable that moves the repository or bounds git's search
//     (GIT_DIR and the others of repoEnv, GIT_CEILING_DIRECTORIES,
//     GIT_DISCOVERY_ACROSS_FILESYSTEM) or adds command-line config
//     (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT);
//   - a directory between the one fledge runs in and the work tree's top
//     that holds a HEAD (git may take it for a repository), or being
//     inside a .git directory;
//   - a .git that is neither a directory nor a "gitdir:" file;
//   - a repository config that mentions "filter", "include" or
//     "worktree" anywhere (a filter driver, an included file, core.worktree,
//     extensions.worktreeConfig): matched as bytes, case-folded, before
//     any parsing, so no reading of the syntax can miss one;
//   - a user or system config that mentions "include" (the remote and its
//     insteadOf rewrites are read from them, as git config reads them);
//   - an index, or a shared index of a split one, holding the bytes of a
//     gitlink's mode (00 00 e0 00), as every submodule's entry does: a
//     submodule's own config is then inspected as before (a chance match
//     elsewhere in the index only costs the full inspection);
//   - git status failing: the full inspection then says why, or that
//     there is no work tree. A status that gave no answer in time (or
//     whose run was stopped) fails closed at once instead: asking again
//     would only wait again.
//
// Measured with bench/all.sh ("fledge <command> in a 5,000-file repo"
// and "git processes" rows): one process in place of four.

// fastEnv are the variables under which the one-process path is not
// taken.
var fastEnv = append([]string{"GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}, repoEnv...)

// maxConfigFile and maxIndexFile bound what the path reads; a larger file
// sends Open to the full inspection.
const (
	maxConfigFile = 1 << 20
	maxIndexFile  = 64 << 20
)

// gitlinkMode is a gitlink's mode (0160000) as the index stores it.
var gitlinkMode = []byte{0, 0, 0xe0, 0}

// openFast is Open's one-process path for the repository whose work tree
// is root (the nearest directory above dir holding a .git). It reports
// false when the path does not apply; Open then inspects the repository
// in full.
func openFast(ctx context.Context, bin, dir, root string, opts Options) (*Repo, bool) {
	for _, k := range fastEnv {
		if hasVar(opts.Env, k) {
			return nil, false
		}
	}
	if !plainDiscovery(realOrAbs(dir), root) {
		return nil, false
	}
	gitDir, common, ok := gitDirs(root)
	if !ok {
		return nil, false
	}
	local, ok := readSmall(filepath.Join(common, "config"))
	if !ok {
		return nil, false
	}
	lower := bytes.ToLower(local)
	for _, w := range []string{"filter", "include", "worktree"} {
		if bytes.Contains(lower, []byte(w)) {
			return nil, false
		}
	}
	if hasGitlinks(gitDir) {
		return nil, false
	}
	files := [][]byte{}
	for _, p := range userConfigs(bin, opts.Env) {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil || len(data) > maxConfigFile || bytes.Contains(bytes.ToLower(data), []byte("include")) {
			return nil, false
		}
		files = append(files, data)
	}
	files = append(files, local)
	r := &Repo{Root: root, g: &gitRunner{bin: bin, dir: dir, env: gitEnv(opts.Env, false), timeout: opts.Timeout}}
	for _, data := range files {
		remotes, insteadOf, ok := readConfig(data)
		if !ok {
			return nil, false
		}
		for _, rm := range remotes {
			if !hasRemote(r.remotes, rm.name) {
				r.remotes = append(r.remotes, rm)
			}
		}
		r.insteadOf = append(r.insteadOf, insteadOf...)
	}
	st, err := r.status(ctx)
	var ge *Error
	switch {
	case errors.As(err, &ge) && ge.Code == -1:
		// No answer in time, or the run was stopped: asking again would
		// only wait again. The state fails closed, as the full
		// inspection's would.
		return &Repo{Root: root, g: r.g, failure: err}, true
	case err != nil:
		return nil, false
	}
	r.first = &st
	return r, true
}

// plainDiscovery reports whether git, searching upward from dir, finds
// root's .git with nothing in between it could take for a repository.
func plainDiscovery(dir, root string) bool {
	if !within(root, dir) {
		return false
	}
	for d := dir; d != root; d = filepath.Dir(d) {
		if filepath.Base(d) == ".git" {
			return false
		}
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); err == nil {
			return false
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
	return true
}

// gitDirs finds the repository's git directory and its common directory
// (which holds the config: a linked worktree's or an absorbed
// submodule's .git file points elsewhere).
func gitDirs(root string) (gitDir, common string, ok bool) {
	dot := filepath.Join(root, ".git")
	fi, err := os.Lstat(dot)
	switch {
	case err != nil:
		return "", "", false
	case fi.IsDir():
		gitDir = dot
	case fi.Mode().IsRegular():
		data, ok := readSmall(dot)
		if !ok {
			return "", "", false
		}
		p, found := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
		if !found || p == "" || strings.ContainsAny(p, "\n\x00") {
			return "", "", false
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		gitDir = p
	default:
		return "", "", false
	}
	common = gitDir
	if data, ok := readSmall(filepath.Join(gitDir, "commondir")); ok {
		p := strings.TrimRight(string(data), "\r\n")
		if p == "" || strings.ContainsAny(p, "\n\x00") {
			return "", "", false
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, p)
		}
		common = p
	} else if _, err := os.Lstat(filepath.Join(gitDir, "commondir")); !errors.Is(err, os.ErrNotExist) {
		return "", "", false
	}
	return gitDir, common, true
}

// hasGitlinks reports whether the index (or a shared index of a split
// one) may hold a gitlink, or cannot be read.
func hasGitlinks(gitDir string) bool {
	shared, err := filepath.Glob(filepath.Join(gitDir, "sharedindex.*"))
	if err != nil {
		return true
	}
	for _, p := range append([]string{filepath.Join(gitDir, "index")}, shared...) {
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue // nothing staged yet
		}
		if err != nil {
			return true
		}
		data, err := io.ReadAll(io.LimitReader(f, maxIndexFile+1))
		f.Close()
		if err != nil || len(data) > maxIndexFile || bytes.Contains(data, gitlinkMode) {
			return true
		}
	}
	return false
}

// readSmall reads a config-sized file, or reports false.
func readSmall(p string) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err != nil || len(data) > maxConfigFile {
		return nil, false
	}
	return data, true
}

// userConfigs are the system and global config files git reads, in its
// order, as git config --show-scope lists them: the system file (none
// with GIT_CONFIG_NOSYSTEM; GIT_CONFIG_SYSTEM, else $(prefix)/etc/gitconfig
// for the git found, /etc/gitconfig when that prefix is /usr), then
// GIT_CONFIG_GLOBAL, or the XDG file and ~/.gitconfig.
func userConfigs(bin string, env []string) []string {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if name, v, ok := strings.Cut(env[i], "="); ok && name == k {
				return v
			}
		}
		return ""
	}
	var out []string
	switch strings.ToLower(get("GIT_CONFIG_NOSYSTEM")) {
	case "1", "true", "yes", "on":
	default:
		if p := get("GIT_CONFIG_SYSTEM"); p != "" {
			out = append(out, p)
		} else if prefix := filepath.Dir(filepath.Dir(realOrAbs(bin))); prefix == "/usr" {
			out = append(out, "/etc/gitconfig")
		} else {
			out = append(out, filepath.Join(prefix, "etc", "gitconfig"))
		}
	}
	if p := get("GIT_CONFIG_GLOBAL"); p != "" {
		return append(out, p)
	}
	home := get("HOME")
	if xdg := get("XDG_CONFIG_HOME"); xdg != "" {
		out = append(out, filepath.Join(xdg, "git", "config"))
	} else if home != "" {
		out = append(out, filepath.Join(home, ".config", "git", "config"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	return out
}

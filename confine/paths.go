package confine

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSplit bounds how many entries allowed lists while carving a hidden
// tree out of a grant (a /tmp holding the home directory), so a huge
// directory cannot slow every run: past it, the grant is dropped.
const maxSplit = 4096

// allowed is what granting path gives, as Landlock rules: Landlock only
// adds rights, and a rule on a directory covers everything below it, so a
// grant that holds a hidden tree (home, FLEDGE_HOME) is replaced by grants
// of each of its entries, down to the hidden tree, which is left out. A
// grant inside a hidden tree is an explicit exception and kept; a grant
// that is a hidden tree is dropped. path is resolved first (a grant of a
// symlink is a grant of its target); a missing path gives nothing.
func allowed(rs *resolver, path string, hidden []string, dropped *[]string) []string {
	if path == "" {
		return nil
	}
	r, err := rs.eval(path)
	if err != nil {
		return nil
	}
	budget := maxSplit
	var out []string
	split(rs, r, hidden, dropped, &budget, true, &out)
	return out
}

// split appends to out the grants dir gives (see allowed), and records in
// rs the type of each entry it lists (compile opens those without
// following links and knows a file from a directory without asking).
func split(rs *resolver, dir string, hidden []string, dropped *[]string, budget *int, top bool, out *[]string) {
	holds := false
	for _, h := range hidden {
		if h == dir {
			if top { // a grant of a hidden tree itself; below, it is carved out
				*dropped = append(*dropped, dir+": it is hidden from plugins")
			}
			return
		}
		if under(h, dir) { // an exception inside a hidden tree
			continue
		}
		if under(dir, h) {
			holds = true
		}
	}
	if !holds {
		*out = append(*out, dir)
		return
	}
	entries, err := rs.list(dir)
	if err != nil || len(entries) > *budget {
		*dropped = append(*dropped, dir+": it holds a hidden directory and cannot be split")
		return
	}
	*budget -= len(entries)
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			// A link here may lead into the hidden tree, or (/dev/fd) to
			// the process drawing the profile: a link is no grant.
			continue
		}
		child := filepath.Join(dir, e.Name())
		rs.kinds[child] = e.Type()
		split(rs, child, hidden, dropped, budget, false, out)
	}
}

// under reports whether p is root or below it. Both are clean absolute
// paths (from EvalSymlinks or joined from one), so a prefix test is exact;
// a filepath.Rel test (manifest.Within) cost most of Derive's time.
func under(root, p string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root) && p[len(root)] == filepath.Separator
}

// real is p with symlinks resolved, or p made absolute when it does not
// exist.
func (rs *resolver) real(p string) string {
	if r, err := rs.eval(p); err == nil {
		return r
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// resolver resolves paths as filepath.EvalSymlinks does, but remembers
// every directory it resolved: a profile is drawn from dozens of paths
// under the same few directories (home, PATH's), and EvalSymlinks stats
// each component of each path again (most of Derive's time). It also
// remembers the directories it listed: a grant holding a hidden tree is
// split into its entries (allowed), and one drawing may split the same
// directory several times (~/.cargo is a PATH directory's toolchain, a
// ToolHomes entry and CARGO_HOME; /tmp holds a project that holds
// FLEDGE_HOME). One lives for one drawing, so it sees the filesystem as it
// is then.
type resolver struct {
	paths map[string]resolved
	dirs  map[string]listing
	// kinds are the types (fs.FileMode type bits) of the entries split
	// listed.
	kinds map[string]fs.FileMode
}

func newResolver() *resolver {
	// A run's drawing resolves about a hundred paths.
	return &resolver{paths: make(map[string]resolved, 128), dirs: map[string]listing{}, kinds: map[string]fs.FileMode{}}
}

type resolved struct {
	real string
	err  error
}

type listing struct {
	entries []os.DirEntry
	err     error
}

// list is os.ReadDir(dir).
func (rs *resolver) list(dir string) ([]os.DirEntry, error) {
	l, ok := rs.dirs[dir]
	if !ok {
		l.entries, l.err = os.ReadDir(dir)
		rs.dirs[dir] = l
	}
	return l.entries, l.err
}

// maxLinks bounds the symbolic links followed in one resolution, as the
// kernel's ELOOP does.
const maxLinks = 40

// eval is filepath.EvalSymlinks(p), made absolute.
func (rs *resolver) eval(p string) (string, error) {
	if hasDotDot(p) {
		// ".." after a link means the link target's parent: leave that to
		// EvalSymlinks, which resolves in order.
		r, err := filepath.EvalSymlinks(p)
		if err == nil && !filepath.IsAbs(r) {
			r, err = filepath.Abs(r)
		}
		return r, err
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	links := 0
	return rs.walk(a, &links)
}

// walk resolves a, a clean absolute path, parent first.
func (rs *resolver) walk(a string, links *int) (string, error) {
	if a == "/" {
		return a, nil
	}
	if r, ok := rs.paths[a]; ok {
		return r.real, r.err
	}
	r, err := rs.step(a, links)
	rs.paths[a] = resolved{r, err}
	return r, err
}

func (rs *resolver) step(a string, links *int) (string, error) {
	parent := filepath.Dir(a)
	dir, err := rs.walk(parent, links)
	if err != nil {
		return "", err
	}
	p := a // no link above it: a itself, not joined again
	if dir != parent {
		p = filepath.Join(dir, filepath.Base(a))
	}
	link, err := isLink(p)
	if err != nil {
		return "", err
	}
	if !link {
		return p, nil
	}
	if *links++; *links > maxLinks {
		return "", &os.PathError{Op: "resolve", Path: a, Err: syscall.ELOOP}
	}
	target, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	if hasDotDot(target) {
		return filepath.EvalSymlinks(target)
	}
	return rs.walk(filepath.Clean(target), links)
}

// hasDotDot reports whether ".." is one of p's elements.
func hasDotDot(p string) bool {
	p = filepath.ToSlash(p)
	for p != "" {
		var elem string
		elem, p, _ = strings.Cut(p, "/")
		if elem == ".." {
			return true
		}
	}
	return false
}

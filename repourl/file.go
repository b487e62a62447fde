package repourl

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// filePath is a file:// URL's identity: the real path of the directory
// git would open. A pattern's literal prefix is resolved the same way.
func filePath(raw, p string, pattern bool) (real, name string, err error) {
	if strings.Contains(p, "%") {
		return "", "", fmt.Errorf("%q: '%%' in a file:// URL is refused: write the path as it is on disk", raw)
	}
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x
	}
	if !filepath.IsAbs(filepath.FromSlash(p)) {
		return "", "", fmt.Errorf("%q names no absolute path: write file:///abs/path", raw)
	}
	if pattern {
		return RealPattern(p), "", nil
	}
	name = strings.TrimSuffix(filepath.Base(filepath.Clean(filepath.FromSlash(p))), ".git")
	if name == "" || name == string(filepath.Separator) || name == "." {
		return "", "", fmt.Errorf("%q names no repository: its path is the root", raw)
	}
	return gitDir(p), name, nil
}

// gitDir is the real path of the repository git opens for a local path:
// the path itself, or the path with ".git" added (git tries both), or when
// neither exists, RealPath of the path.
func gitDir(p string) string {
	for _, c := range []string{p, strings.TrimRight(p, "/") + ".git"} {
		if real, err := filepath.EvalSymlinks(filepath.FromSlash(c)); err == nil {
			return filepath.ToSlash(real)
		}
	}
	return RealPath(p)
}

// RealPath is p with every symlink of its deepest existing ancestor
// resolved (as the file system resolves them, ".." after a symlink
// included) and the rest cleaned, in forward slashes: two paths of one
// directory have one RealPath, and so do two paths of one directory that
// does not exist yet.
func RealPath(p string) string {
	p = filepath.FromSlash(p)
	sep := string(filepath.Separator)
	segs := strings.Split(p, sep)
	// The longest prefix that exists is resolved by the file system; what
	// follows starts with a name that does not exist, so "x/.." there
	// would fail in the file system and is cleaned as written.
	for i := len(segs); i > 0; i-- {
		prefix := strings.Join(segs[:i], sep)
		if prefix == "" {
			prefix = sep
		}
		if real, err := filepath.EvalSymlinks(prefix); err == nil {
			return filepath.ToSlash(filepath.Join(append([]string{real}, segs[i:]...)...))
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// RealPattern is RealPath of a path glob's literal prefix (the segments
// before the first holding a glob character), with the rest appended as
// written (empty segments dropped): a rule written /tmp/evil/* matches the
// plugins under /private/tmp/evil when /tmp is a link to /private/tmp.
func RealPattern(p string) string {
	segs := strings.Split(filepath.ToSlash(p), "/")
	i := 0
	for i < len(segs) && !strings.ContainsAny(segs[i], "*?[") {
		i++
	}
	prefix := strings.Join(segs[:i], "/")
	if prefix == "" {
		prefix = "/"
	}
	out := RealPath(prefix)
	for _, s := range segs[i:] {
		if s != "" {
			out = strings.TrimSuffix(out, "/") + "/" + s
		}
	}
	return out
}

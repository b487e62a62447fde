package treehash

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// Prefix marks hashes computed by this version of the algorithm.
const Prefix = "fh1:"

// MaxFiles bounds how many entries a plugin tree may hold.
const MaxFiles = 200_000

// Entry kinds.
const (
	KindFile    = "file"
	KindExec    = "exec"
	KindSymlink = "symlink"
)

// Entry is one file or symlink in a tree.
type Entry struct {
	Path   string `json:"path"` // slash-separated, relative to the root
	Kind   string `json:"kind"`
	Digest string `json:"digest"` // sha256 of the contents, or of the link target
}

// Tree is the hashed contents of a directory.
type Tree struct {
	Hash    string  `json:"hash"`
	Entries []Entry `json:"entries"`
}

// Options tune a walk.
type Options struct {
	// Skip reports slash-separated relative paths to leave out (with
	// everything below them). The root's .git is always skipped.
	Skip func(rel string) bool
	// AllowExternalLinks records symlinks that point out of the tree
	// instead of refusing them: for trees after an approved build (a
	// Python venv links its interpreter), not for fetched sources.
	AllowExternalLinks bool
}

// ErrUnsafeTree is wrapped by errors about trees fledge will not install.
var ErrUnsafeTree = errors.New("unsafe plugin tree")

// Hash walks root and hashes it. It does not follow symlinks; a symlink that
// resolves outside root, or any special file, is an ErrUnsafeTree.
func Hash(root string, o Options) (*Tree, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	err = filepath.WalkDir(realRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(realRoot, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if rel == ".git" || (o.Skip != nil && o.Skip(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if len(entries) >= MaxFiles {
			return fmt.Errorf("%w: more than %d files", ErrUnsafeTree, MaxFiles)
		}
		switch t := d.Type(); {
		case t.IsDir():
			return nil
		case t&fs.ModeSymlink != 0:
			e, err := hashLink(realRoot, p, rel, o.AllowExternalLinks)
			if err != nil {
				return err
			}
			entries = append(entries, e)
		case t.IsRegular():
			e, err := hashFile(p, rel)
			if err != nil {
				return err
			}
			entries = append(entries, e)
		default:
			return fmt.Errorf("%w: %s is a special file (%s)", ErrUnsafeTree, rel, t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return &Tree{Hash: Sum(entries), Entries: entries}, nil
}

// Sum is the hash of a sorted entry list.
func Sum(entries []Entry) string {
	h := sha256.New()
	for _, e := range entries {
		fmt.Fprintf(h, "%s %s %s\n", e.Kind, e.Digest, e.Path)
	}
	return Prefix + hex.EncodeToString(h.Sum(nil))
}

func hashFile(p, rel string) (Entry, error) {
	// The walk saw a regular file, but the name may have been swapped
	// since: open without blocking, and refuse what was opened unless it
	// is still a regular file.
	f, err := bounded.OpenNoLink(p)
	var nr *bounded.NotRegularError
	if errors.As(err, &nr) {
		return Entry{}, fmt.Errorf("%w: %s is %s, not a regular file", ErrUnsafeTree, rel, cmp.Or(nr.Kind, "a special file"))
	}
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Entry{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return Entry{}, fmt.Errorf("hash %s: %w", rel, err)
	}
	kind := KindFile
	if fi.Mode().Perm()&0o111 != 0 {
		kind = KindExec
	}
	return Entry{Path: rel, Kind: kind, Digest: hex.EncodeToString(h.Sum(nil))}, nil
}

func hashLink(realRoot, p, rel string, allowExternal bool) (Entry, error) {
	target, err := os.Readlink(p)
	if err != nil {
		return Entry{}, err
	}
	if !allowExternal && !linkStaysInside(realRoot, p, target) {
		return Entry{}, fmt.Errorf("%w: symlink %s points outside the plugin (%s)", ErrUnsafeTree, rel, target)
	}
	sum := sha256.Sum256([]byte(filepath.ToSlash(target)))
	return Entry{Path: rel, Kind: KindSymlink, Digest: hex.EncodeToString(sum[:])}, nil
}

// linkStaysInside reports whether the link at p, pointing at target, stays
// inside realRoot. The target is resolved the way the kernel resolves it:
// component by component, following links already in the tree, so "x/.."
// is not cleaned away before x is known not to be a link. A dangling target
// is allowed only if it never climbs with "..": what it would name once
// created can then not be decided by links elsewhere in the tree.
func linkStaysInside(realRoot, p, target string) bool {
	joined := filepath.Dir(p) + string(filepath.Separator) + target
	if filepath.IsAbs(target) {
		joined = target
	}
	if r, err := filepath.EvalSymlinks(joined); err == nil {
		return within(realRoot, r)
	}
	if filepath.IsAbs(target) {
		return false // a dangling absolute target names this machine, not the plugin
	}
	for _, part := range strings.Split(filepath.ToSlash(target), "/") {
		if part == ".." {
			return false
		}
	}
	// No "..": resolve the deepest existing ancestor, which must be inside.
	dir := filepath.Dir(filepath.Clean(joined))
	for !within(realRoot, dir) || !exists(dir) {
		if !within(realRoot, dir) {
			return false
		}
		dir = filepath.Dir(dir)
	}
	r, err := filepath.EvalSymlinks(dir)
	return err == nil && within(realRoot, r)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Diff lists the paths that differ between an old and a new tree.
type Diff struct {
	Modified []string `json:"modified"`
	Added    []string `json:"added"`
	Missing  []string `json:"missing"`
}

// Compare returns how now differs from was.
func Compare(was, now []Entry) Diff {
	d := Diff{Modified: []string{}, Added: []string{}, Missing: []string{}}
	old := make(map[string]Entry, len(was))
	for _, e := range was {
		old[e.Path] = e
	}
	for _, e := range now {
		o, ok := old[e.Path]
		switch {
		case !ok:
			d.Added = append(d.Added, e.Path)
		case o != e:
			d.Modified = append(d.Modified, e.Path)
		}
		delete(old, e.Path)
	}
	for p := range old {
		d.Missing = append(d.Missing, p)
	}
	sort.Strings(d.Missing)
	return d
}

// FileDigest returns the sha256 of a file's bytes, prefixed like a tree hash,
// for recording a single file such as the approved plugin.toml.
func FileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

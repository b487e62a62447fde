package gitdirty

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// Dirty reports whether `git status --porcelain` would print anything for
// r's worktree: staged or unstaged changes, conflicts, or untracked files
// that no ignore rule covers. A bare repository is never dirty.
//
// Like git, it trusts the stat data the index recorded: a tracked file
// whose size, times, inode and mode are what the index says, and which is
// not racily clean, is unchanged without being read. A file whose stat
// data changed is hashed. Unlike git, it applies no clean filters or line
// ending conversion when it hashes (neither does go-git): a file under
// such a filter that was touched but not changed counts as dirty.
func Dirty(r *git.Repository) (bool, error) {
	return dirty(r, 0, false)
}

// dirty is Dirty for r at submodule depth depth; noUntracked leaves
// untracked files out (a submodule whose ignore setting is "untracked").
func dirty(r *git.Repository, depth int, noUntracked bool) (bool, error) {
	wt, err := r.Worktree()
	if err != nil {
		if errors.Is(err, git.ErrIsBareRepository) {
			return false, nil
		}
		return false, err
	}
	st, ok := r.Storer.(*filesystem.Storage)
	if !ok {
		return goGitDirty(wt)
	}
	c, err := newChecker(r, wt.Filesystem.Root(), st.Filesystem().Root(), depth)
	if errors.Is(err, errUnsupported) {
		return goGitDirty(wt)
	}
	if err != nil {
		return false, err
	}
	if noUntracked {
		c.untrack = false
	}
	return c.run()
}

// goGitDirty is the slow, general answer: go-git's full status.
func goGitDirty(wt *git.Worktree) (bool, error) {
	s, err := wt.Status()
	if err != nil {
		return false, err
	}
	return !s.IsClean(), nil
}

// checker holds what one Dirty call needs. Its three checks (index against
// HEAD, tracked files against the index, untracked files) run
// concurrently; the first to find a difference stops the others.
type checker struct {
	repo      *git.Repository
	root      string           // the worktree, absolute
	gitDir    string           // this worktree's git directory (holds the index)
	commonDir string           // the git directory all worktrees share (config, info/exclude)
	config    []*config.Config // the config files git reads, lowest priority first
	idx       *index
	names     []string // idx's entry names, sorted, for lookups
	indexMod  statTime // the index file's mtime, for racy entries
	fileMode  bool     // core.fileMode: the executable bit counts
	minStat   bool     // core.checkStat=minimal: only mtime seconds and size
	fold      bool     // core.ignoreCase: ignore rules match case-insensitively
	noCtime   bool     // core.trustCtime=false: the ctime does not count
	untrack   bool     // status.showUntrackedFiles is not "no"
	global    []pattern
	ignore    map[string]string // submodule path → its .gitmodules ignore setting
	depth     int               // how deep in submodules this repository is

	found atomic.Bool
}

func newChecker(r *git.Repository, root, gitDir string, depth int) (*checker, error) {
	c := &checker{repo: r, root: root, gitDir: gitDir, commonDir: commonDir(gitDir), depth: depth, fileMode: true, untrack: true}
	indexPath := filepath.Join(gitDir, "index")
	fi, err := os.Stat(indexPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.idx = &index{} // a fresh repository: nothing staged yet
	case err != nil:
		return nil, err
	default:
		// The mtime is taken before the read: if the index is rewritten
		// in between, more entries look racy, never fewer.
		t := fi.ModTime()
		c.indexMod = statTime{uint32(t.Unix()), uint32(t.Nanosecond())}
		if c.idx, err = readIndex(indexPath); err != nil {
			return nil, err
		}
	}
	c.names = make([]string, 0, len(c.idx.entries))
	for i := range c.idx.entries {
		e := &c.idx.entries[i]
		name := e.name
		if c.idx.sparse && e.mode == filemode.Dir {
			name = strings.TrimSuffix(name, "/") // a sparse directory entry
		}
		if !validPath(name) {
			return nil, fmt.Errorf("git index entry %q is not a path inside the worktree", e.name)
		}
		c.names = append(c.names, e.name)
	}
	if !sort.StringsAreSorted(c.names) {
		sort.Strings(c.names)
	}
	if err := c.readConfig(); err != nil {
		return nil, err
	}
	if err := c.readModules(); err != nil {
		return nil, err
	}
	return c, nil
}

// validPath is git's verify_path in short: a relative, slash-separated path
// with no empty, "." or ".." component and no .git component. Entries that
// fail it are never looked up on disk.
func validPath(p string) bool {
	if p == "" {
		return false
	}
	for rest := p; ; {
		part, more, found := strings.Cut(rest, "/")
		switch {
		case part == "", part == ".", part == "..", strings.EqualFold(part, ".git"),
			strings.IndexByte(part, 0) >= 0:
			return false
		}
		if !found {
			return true
		}
		rest = more
	}
}

// run runs the three checks and combines them: any difference makes the
// worktree dirty, whatever errors the other checks met.
func (c *checker) run() (bool, error) {
	g := checks{c: c}
	g.goCheck(c.staged)
	// Tracked files in chunks, one per core, as git's preload-index does.
	n := runtime.GOMAXPROCS(0)
	entries := c.idx.entries
	per := (len(entries) + n - 1) / n
	for lo := 0; lo < len(entries); lo += per {
		chunk := entries[lo:min(lo+per, len(entries))]
		g.goCheck(func() (bool, error) { return c.tracked(chunk) })
	}
	if c.untrack {
		g.goCheck(c.untracked)
	}
	return g.wait()
}

// checks runs checks concurrently: the first difference any of them
// finds sets c.found (which the others poll to stop early), and their
// errors are collected.
type checks struct {
	c    *checker
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

func (g *checks) goCheck(f func() (bool, error)) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		dirty, err := f()
		if dirty {
			g.c.found.Store(true)
		}
		if err != nil {
			g.mu.Lock()
			g.errs = append(g.errs, err)
			g.mu.Unlock()
		}
	}()
}

// wait waits for the checks: any difference makes the worktree dirty,
// whatever errors the others met.
func (g *checks) wait() (bool, error) {
	g.wg.Wait()
	if g.c.found.Load() {
		return true, nil
	}
	return false, errors.Join(g.errs...)
}

// ---- the index against HEAD ----

// staged reports whether the index differs from HEAD's tree: what
// porcelain's first column shows, and conflicts.
func (c *checker) staged() (bool, error) {
	for i := range c.idx.entries {
		if e := &c.idx.entries[i]; e.stage != 0 || e.intentToAdd {
			return true, nil
		}
	}
	head, err := c.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return len(c.idx.entries) > 0, nil // unborn branch: everything is new
	}
	if err != nil {
		return false, err
	}
	commit, err := c.repo.CommitObject(head.Hash())
	if err != nil {
		return false, err
	}
	// The cached tree is the tree the index would write: when it is valid
	// the comparison is one hash.
	if c.idx.treeValid {
		return c.idx.treeHash != commit.TreeHash, nil
	}
	tree, err := commit.Tree()
	if err != nil {
		return false, err
	}
	return c.differsFromTree(tree)
}

// differsFromTree walks tree's files in git's order beside the index's
// entries (the same order) and stops at the first difference.
func (c *checker) differsFromTree(tree *object.Tree) (bool, error) {
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	entries := c.idx.entries
	i := 0
	skip := "" // a sparse directory entry's prefix: its files are not in the index
	for !c.found.Load() {
		name, te, err := w.Next()
		if errors.Is(err, io.EOF) {
			return i != len(entries), nil
		}
		if err != nil {
			return false, err
		}
		if skip != "" && strings.HasPrefix(name, skip) {
			continue
		}
		skip = ""
		if te.Mode == filemode.Dir {
			if i < len(entries) && entries[i].mode == filemode.Dir && entries[i].name == name+"/" {
				if entries[i].hash != te.Hash {
					return true, nil
				}
				skip = name + "/"
				i++
			}
			continue
		}
		if i == len(entries) {
			return true, nil
		}
		e := &entries[i]
		if e.name != name || e.hash != te.Hash || e.mode != te.Mode {
			return true, nil
		}
		i++
	}
	return false, nil
}

// ---- tracked files against the index ----

// fileStat is what one lstat says of a worktree path, as the index
// records it.
type fileStat struct {
	kind         fileKind
	exec         bool // the owner's executable bit
	size         int64
	mtime, ctime statTime
	ino          uint64
	uid, gid     uint32
	full         bool // ctime, inode and owner are known (not on every platform)
}

type fileKind int

const (
	kindOther fileKind = iota
	kindRegular
	kindSymlink
	kindDir
)

// statTime is a file time as the index records it.
type statTime struct{ sec, nsec uint32 }

// changed compares one entry with what lstat says of its path, as git's
// ie_match_stat does; hash is called only when that cannot decide (the
// stat data moved, or the entry is racily clean).
func (c *checker) changed(e *indexEntry, st fileStat, hash func() (plumbing.Hash, error)) bool {
	switch e.mode {
	case filemode.Symlink:
		if st.kind != kindSymlink {
			return true
		}
	case filemode.Regular, filemode.Executable, filemode.Deprecated:
		if st.kind != kindRegular {
			return true
		}
		if c.fileMode && st.exec != (e.mode == filemode.Executable) {
			return true
		}
	default:
		return true
	}
	if e.size != 0 && e.size != uint32(st.size) {
		return true // git: a size change is a change, unread
	}
	if c.statMatches(e, st) && !c.racy(e) {
		return false
	}
	h, err := hash()
	return err != nil || h != e.hash
}

// statMatches reports whether st is what e recorded: times, inode, owner
// and size (git's default core.checkStat; the device is left out, as git
// leaves it out), less what core.checkStat and core.trustCtime leave out.
// Where the platform gives only mtime and size, those.
func (c *checker) statMatches(e *indexEntry, st fileStat) bool {
	if e.mtimeSec != st.mtime.sec || e.size != uint32(st.size) {
		return false
	}
	if c.minStat {
		return true
	}
	if e.mtimeNsec != st.mtime.nsec {
		return false
	}
	if !st.full {
		return true
	}
	if !c.noCtime && (e.ctimeSec != st.ctime.sec || e.ctimeNsec != st.ctime.nsec) {
		return false
	}
	return e.ino == uint32(st.ino) && e.uid == st.uid && e.gid == st.gid
}

// racy reports whether e may have changed within the timestamp granularity
// of the index's own write: its mtime is not older than the index file's.
func (c *checker) racy(e *indexEntry) bool {
	if c.indexMod.sec == 0 {
		return true
	}
	return e.mtimeSec > c.indexMod.sec || (e.mtimeSec == c.indexMod.sec && e.mtimeNsec >= c.indexMod.nsec)
}

// hashReader streams a file of size bytes into its blob hash: a tracked
// file can be large.
func hashReader(r io.Reader, size int64) (plumbing.Hash, error) {
	h := plumbing.NewHasher(plumbing.BlobObject, size)
	n, err := io.Copy(h, io.LimitReader(r, size+1))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if n != size {
		return plumbing.ZeroHash, errors.New("file changed while it was read")
	}
	return h.Sum(), nil
}

// symlinkHash is the blob hash of a symlink: its target, slash-separated.
func symlinkHash(target string) plumbing.Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, []byte(filepath.ToSlash(target)))
}

// ---- untracked files ----

// commonDir is the git directory shared by all worktrees: a linked
// worktree's git directory names it in its commondir file.
func commonDir(gitDir string) string {
	data, err := bounded.ReadFile(filepath.Join(gitDir, "commondir"), 4096)
	if err != nil {
		return gitDir
	}
	dir := strings.TrimSpace(string(data))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return dir
}

// untracked walks the worktree for a file that is neither tracked nor
// ignored: what porcelain's "??" lines show. The root's subdirectories are
// walked in parallel, one goroutine per core.
func (c *checker) untracked() (bool, error) {
	ps := append([]pattern(nil), c.global...)
	if more, err := readPatterns(filepath.Join(c.commonDir, "info", "exclude"), ""); err == nil {
		ps = append(ps, more...)
	}
	var subdirs []subdir
	dirty, err := c.walk("", ps, span{0, len(c.names)}, &subdirs)
	if dirty || err != nil || len(subdirs) == 0 {
		return dirty, err
	}
	work := make(chan subdir)
	g := checks{c: c}
	for range min(runtime.GOMAXPROCS(0), len(subdirs)) {
		g.goCheck(func() (bool, error) {
			var errs []error
			for d := range work {
				dirty, err := c.walk(d.path, d.ps, d.names, nil)
				if dirty {
					c.found.Store(true)
				}
				errs = append(errs, err)
			}
			return false, errors.Join(errs...)
		})
	}
	for _, d := range subdirs {
		if c.found.Load() {
			break
		}
		work <- d
	}
	close(work)
	return g.wait()
}

// span is the range of c.names below one directory: every name in it
// starts with the directory's path and a slash.
type span struct{ lo, hi int }

// subdir is a directory left for a worker: its path, the ignore rules in
// force there and the tracked names below it.
type subdir struct {
	path  string
	ps    []pattern
	names span
}

// walk looks through the directory rel (relative, slash-separated, "" for
// the root), whose tracked names are those in names, for an untracked,
// unignored file. An empty span means an untracked directory, where one
// such file (or a repository) is enough for git to list it. With defer
// set, subdirectories are handed back there instead of walked.
func (c *checker) walk(rel string, ps []pattern, names span, deferred *[]subdir) (bool, error) {
	if c.found.Load() {
		return false, nil
	}
	dir := filepath.Join(c.root, filepath.FromSlash(rel))
	f, err := os.Open(dir)
	if err != nil {
		return false, nil // unreadable: git warns and goes on
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return false, nil
	}
	for _, de := range entries {
		if de.Name() == ".gitignore" && de.Type().IsRegular() {
			more, err := readPatterns(filepath.Join(dir, ".gitignore"), rel)
			if err != nil {
				return false, err
			}
			ps = append(ps[:len(ps):len(ps)], more...)
		}
	}
	prefix := 0 // bytes of rel and its slash at the start of every name in names
	if rel != "" {
		prefix = len(rel) + 1
	}
	untrackedDir := names.lo == names.hi
	for _, de := range entries {
		name := de.Name()
		if name == ".git" {
			if untrackedDir && rel != "" {
				return true, nil // an untracked repository inside: git lists it
			}
			continue
		}
		t := de.Type()
		if !t.IsRegular() && t&os.ModeSymlink == 0 && !t.IsDir() {
			continue // FIFOs, sockets, devices: git neither tracks nor lists them
		}
		if !untrackedDir && c.tracked1(names, prefix, name) {
			continue // a tracked file, or a submodule: tracked() looks at it
		}
		path := name
		if rel != "" {
			path = rel + "/" + name
		}
		if !t.IsDir() {
			if !match(ps, path, false, c.fold) {
				return true, nil
			}
			continue
		}
		if match(ps, path, true, c.fold) {
			continue // ignored: untracked files below it are too
		}
		sub := c.below(names, prefix, name)
		if deferred != nil {
			*deferred = append(*deferred, subdir{path, ps, sub})
			continue
		}
		if dirty, err := c.walk(path, ps, sub, nil); dirty || err != nil {
			return dirty, err
		}
	}
	return false, nil
}

// tracked1 reports whether name, in the directory whose names (each
// prefix bytes of directory path first) are in s, is tracked itself.
func (c *checker) tracked1(s span, prefix int, name string) bool {
	i := s.lo + sort.Search(s.hi-s.lo, func(i int) bool { return c.names[s.lo+i][prefix:] >= name })
	return i < s.hi && c.names[i][prefix:] == name
}

// below is the span of names under the subdirectory name of the directory
// s covers.
func (c *checker) below(s span, prefix int, name string) span {
	if s.lo == s.hi {
		return s
	}
	lo := s.lo + sort.Search(s.hi-s.lo, func(i int) bool { return c.names[s.lo+i][prefix:] >= name+"/" })
	hi := lo + sort.Search(s.hi-lo, func(i int) bool { return c.names[lo+i][prefix:] >= name+"0" }) // '0' follows '/'
	return span{lo, hi}
}

// splitDir splits "a/b/c" into "a/b" and "c".
func splitDir(p string) (dir, name string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

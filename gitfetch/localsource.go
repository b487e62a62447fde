package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
)

// A repository on this machine (a file:// URL, or a plain path, which go-git
// reads as one) is checked out without a transfer: no pack is built, sent,
// indexed and stored, which is most of what a clone costs (go-git's
// in-process server searches for deltas as it builds one). Its objects are
// read where they are, through the same storage that serves it over
// file:// (every file opened by bounded.Open, large objects streamed), the
// revision is resolved and verified as a clone's would be, the tree is
// bounded by checkTree, and go-git's own Worktree.Checkout writes the files:
// the same modes, symlinks and refusals as after a clone. Refs, index,
// config and shallow list live in memory, so nothing is ever written into
// the source.

// errReadOnly refuses a write of an object during a local checkout, which
// would otherwise land in a repository fledge does not control.
var errReadOnly = errors.New("the source repository is read only")

// checkoutLocal is checkout for the repository at ep.Path. It returns the
// commit checked out and the source's objects, for reading its history.
func checkoutLocal(ctx context.Context, url string, ep *transport.Endpoint, rev Revision, dir string, o Options) (plumbing.Hash, storer.EncodedObjectStorer, error) {
	fail := func(err error) (plumbing.Hash, storer.EncodedObjectStorer, error) {
		if cerr := ctx.Err(); cerr != nil {
			return plumbing.ZeroHash, nil, fmt.Errorf("check out %s: %w", url, cerr)
		}
		return plumbing.ZeroHash, nil, err
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	src, err := openSource(ep.Path)
	if err != nil {
		return fail(explain("clone", url, err))
	}
	want, err := localRevision(ctx, src, url, rev)
	if err != nil {
		return fail(err)
	}
	if rev.Commit != "" && want.String() != rev.Commit {
		return fail(fmt.Errorf("%s moved while fetching: expected commit %s, got %s", url, rev.Commit, want))
	}
	st := newSourceStorage(ctx, src)
	if err := st.SetReference(plumbing.NewHashReference(plumbing.HEAD, want)); err != nil {
		return fail(err)
	}
	repo, err := git.Open(st, ctxFS{osfs.New(dir), ctx})
	if err != nil {
		return fail(err)
	}
	if err := checkTree(repo, want, o); err != nil {
		return fail(incomplete(url, fmt.Errorf("%s at %s: %w", url, want, err)))
	}
	if err := writeRecord(dir, src, rev, want); err != nil {
		return fail(incomplete(url, fmt.Errorf("record %s in %s: %w", want, dir, err)))
	}
	wt, err := repo.Worktree()
	if err != nil {
		return fail(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Hash: want, Force: true}); err != nil {
		return fail(incomplete(url, fmt.Errorf("check out %s: %w", want, err)))
	}
	return want, src, nil
}

// incomplete says what a missing object means in a local repository.
func incomplete(url string, err error) error {
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return err
	}
	return fmt.Errorf("%w: the repository at %s lacks objects this revision needs (a shallow or partial clone, or a damaged one); install from a complete clone (git fetch --unshallow, or git clone it again)", err, url)
}

// openSource opens the repository at path, bare or with a .git directory,
// read through bounded.Open.
func openSource(path string) (*filesystem.Storage, error) {
	root := localFS(path)
	if fi, err := root.Stat(".git"); err == nil && fi.IsDir() {
		dot, err := root.Chroot(".git")
		if err != nil {
			return nil, err
		}
		return newStorage(dot), nil
	}
	if _, err := root.Stat("HEAD"); err == nil {
		if _, err := root.Stat("objects"); err == nil {
			return newStorage(root), nil
		}
	}
	return nil, transport.ErrRepositoryNotFound
}

// maxTagDepth bounds a chain of tags naming tags.
const maxTagDepth = 8

// localRevision finds the commit rev names in src, with a clone's checks:
// a ref that is gone or moved since it was listed, a commit that no
// branch or tag reaches.
func localRevision(ctx context.Context, src *filesystem.Storage, url string, rev Revision) (plumbing.Hash, error) {
	if rev.RefName == "" {
		return reachableCommit(ctx, src, url, rev.Ref)
	}
	ref, err := storer.ResolveReference(src, rev.RefName)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		// go-git reads a loose ref it cannot open as absent: say why.
		if f, oerr := src.Filesystem().Open(rev.RefName.String()); oerr == nil {
			f.Close()
		} else if !errors.Is(oerr, fs.ErrNotExist) {
			return plumbing.ZeroHash, fmt.Errorf("%s: read %s: %w", url, rev.RefName, oerr)
		}
		return plumbing.ZeroHash, fmt.Errorf("%s: %s is gone (it was listed, then deleted while fetching): %w", url, rev.RefName.Short(), ErrRefNotFound)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s: read %s: %w", url, rev.RefName, err)
	}
	if rev.Object != "" && ref.Hash().String() != rev.Object {
		return plumbing.ZeroHash, fmt.Errorf("%s: %s moved while fetching (listed %s, fetched %s)", url, rev.RefName.Short(), rev.Object, ref.Hash())
	}
	h := ref.Hash()
	for range maxTagDepth {
		obj, err := src.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, incomplete(url, fmt.Errorf("%s at %s: %w", rev.RefName.Short(), h, err))
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			tag, err := object.DecodeTag(src, obj)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("%s: tag %s: %w", url, h, err)
			}
			h = tag.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("%s: %s names a %s, not a commit", url, rev.RefName.Short(), obj.Type())
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("%s: %s is a chain of more than %d tags", url, rev.RefName.Short(), maxTagDepth)
}

// reachableCommit finds the commit whose hash is or begins with ref among
// those the source's branches and tags reach (what a clone of them holds:
// a commit only a stash, a note or nothing reaches is not found), and an
// annotated tag's commit when ref names the tag object. It stops at the
// source's shallow boundary.
func reachableCommit(ctx context.Context, src *filesystem.Storage, url, ref string) (plumbing.Hash, error) {
	prefix := strings.ToLower(ref)
	notFound := fmt.Errorf("commit %q in %s: %w", ref, url, ErrRefNotFound)
	if prefix == "" || strings.Trim(prefix, "0123456789abcdef") != "" {
		return plumbing.ZeroHash, notFound
	}
	full := len(prefix) == 2*len(plumbing.ZeroHash)
	if full {
		if err := src.HasEncodedObject(plumbing.NewHash(prefix)); err != nil {
			return plumbing.ZeroHash, notFound // no walk for what is not there
		}
	}
	shallow := map[plumbing.Hash]bool{}
	hs, err := src.Shallow()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s: read its shallow list: %w", url, err)
	}
	for _, h := range hs {
		shallow[h] = true
	}
	var stack []plumbing.Hash
	refs, err := src.IterReferences()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s: list its refs: %w", url, err)
	}
	err = refs.ForEach(func(r *plumbing.Reference) error {
		if !r.Name().IsBranch() && !r.Name().IsTag() {
			return nil
		}
		if r, err := storer.ResolveReference(src, r.Name()); err == nil {
			stack = append(stack, r.Hash())
		}
		return nil
	})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s: list its refs: %w", url, err)
	}
	seen := map[plumbing.Hash]bool{}
	found := map[plumbing.Hash]bool{}
	for n := 0; len(stack) > 0; n++ {
		if n%256 == 0 && ctx.Err() != nil {
			return plumbing.ZeroHash, ctx.Err()
		}
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		obj, err := src.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, incomplete(url, fmt.Errorf("looking for commit %q: %s: %w", ref, h, err))
		}
		match := strings.HasPrefix(h.String(), prefix)
		switch obj.Type() {
		case plumbing.CommitObject:
			if match {
				found[h] = true
				if full {
					return h, nil
				}
			}
			if shallow[h] {
				continue // its parents are not in the source
			}
			c, err := object.DecodeCommit(src, obj)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("%s: commit %s: %w", url, h, err)
			}
			stack = append(stack, c.ParentHashes...)
		case plumbing.TagObject:
			tag, err := object.DecodeTag(src, obj)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("%s: tag %s: %w", url, h, err)
			}
			if match {
				if c, err := tag.Commit(); err == nil {
					found[c.Hash] = true
				}
			}
			stack = append(stack, tag.Target)
		}
	}
	switch len(found) {
	case 0:
		return plumbing.ZeroHash, notFound
	case 1:
		for h := range found {
			return h, nil
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("commit %q in %s is ambiguous: %d commits begin with it; give more of the hash", ref, url, len(found))
}

// writeRecord makes dir/.git a record of the revision checked out, as a
// clone leaves one for Made and its callers: HEAD at commit, the commit and
// the tag objects rev names, and commit as the shallow boundary. The tree
// is not copied: it was read from the source.
func writeRecord(dir string, src storer.EncodedObjectStorer, rev Revision, commit plumbing.Hash) error {
	st := filesystem.NewStorage(osfs.New(filepath.Join(dir, git.GitDirName)), cache.NewObjectLRUDefault())
	if _, err := git.Init(st, osfs.New(dir)); err != nil {
		return err
	}
	objs := []plumbing.Hash{commit}
	if rev.RefName.IsTag() && rev.Object != "" && rev.Object != commit.String() {
		for h, depth := plumbing.NewHash(rev.Object), 0; h != commit && depth < maxTagDepth; depth++ {
			objs = append(objs, h)
			tag, err := object.GetTag(src, h)
			if err != nil {
				return err
			}
			h = tag.Target
		}
	}
	var parents bool
	for _, h := range objs {
		obj, err := src.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return err
		}
		if h == commit {
			c, err := object.DecodeCommit(src, obj)
			if err != nil {
				return err
			}
			parents = c.NumParents() > 0
		}
		if _, err := st.SetEncodedObject(obj); err != nil {
			return err
		}
	}
	if parents {
		if err := st.SetShallow([]plumbing.Hash{commit}); err != nil {
			return err
		}
	}
	return st.SetReference(plumbing.NewHashReference(plumbing.HEAD, commit))
}

// sourceStorage is a repository whose objects are a local source's, read in
// place, and whose refs, index, config, shallow list and modules live in
// memory. Every read of an object first checks ctx, so a cancelled
// checkout stops at the next file.
type sourceStorage struct {
	*memory.ConfigStorage
	*memory.ShallowStorage
	*memory.IndexStorage
	memory.ReferenceStorage
	memory.ModuleStorage
	src *filesystem.Storage
	ctx context.Context
}

func newSourceStorage(ctx context.Context, src *filesystem.Storage) *sourceStorage {
	m := memory.NewStorage()
	return &sourceStorage{
		ConfigStorage:    &m.ConfigStorage,
		ShallowStorage:   &m.ShallowStorage,
		IndexStorage:     &m.IndexStorage,
		ReferenceStorage: m.ReferenceStorage,
		ModuleStorage:    m.ModuleStorage,
		src:              src,
		ctx:              ctx,
	}
}

func (s *sourceStorage) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (s *sourceStorage) SetEncodedObject(plumbing.EncodedObject) (plumbing.Hash, error) {
	return plumbing.ZeroHash, errReadOnly
}

func (s *sourceStorage) AddAlternate(string) error { return errReadOnly }

func (s *sourceStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	return s.src.EncodedObject(t, h)
}

func (s *sourceStorage) IterEncodedObjects(t plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return s.src.IterEncodedObjects(t)
}

func (s *sourceStorage) HasEncodedObject(h plumbing.Hash) error { return s.src.HasEncodedObject(h) }

func (s *sourceStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	return s.src.EncodedObjectSize(h)
}

// ctxFS is a checkout's file system: once ctx is done, nothing more is
// created or written.
type ctxFS struct {
	billy.Filesystem
	ctx context.Context
}

func (fs ctxFS) Create(name string) (billy.File, error) {
	return fs.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (fs ctxFS) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if err := fs.ctx.Err(); err != nil {
		return nil, err
	}
	f, err := fs.Filesystem.OpenFile(name, flag, perm)
	if err != nil || flag&writeFlags == 0 {
		return f, err
	}
	return ctxFile{f, fs.ctx}, nil
}

func (fs ctxFS) Symlink(target, link string) error {
	if err := fs.ctx.Err(); err != nil {
		return err
	}
	return fs.Filesystem.Symlink(target, link)
}

// ctxFile is a file being written by a checkout: a large one stops at the
// next write once ctx is done.
type ctxFile struct {
	billy.File
	ctx context.Context
}

func (f ctxFile) Write(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	return f.File.Write(p)
}

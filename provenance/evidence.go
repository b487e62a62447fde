package provenance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MaxEvidenceBytes bounds signature evidence: a commit and a tag object
// with their signatures are a few KiB.
const MaxEvidenceBytes = 64 << 10

// ErrNoEvidence is wrapped when evidence does not hold what it must, or
// does not cover the tree it travels with: what it vouches for is then
// unsigned, never a signature taken on trust.
var ErrNoEvidence = errors.New("the signature evidence does not cover it")

// EncodeEvidence is the raw git objects a signature covers, for carrying
// with a tree away from its repository (an OCI artifact): each object in
// git's own encoding, "TYPE SIZE\x00CONTENT", whose SHA-1 is its id. objs
// are the commit and, for a signed tag, the tag object, read byte for byte
// from the repository (never re-encoded: a re-encoding may differ).
func EncodeEvidence(objs ...plumbing.EncodedObject) ([]byte, error) {
	var buf bytes.Buffer
	for _, o := range objs {
		if t := o.Type(); t != plumbing.CommitObject && t != plumbing.TagObject {
			return nil, fmt.Errorf("evidence holds commits and tags, not a %s", t)
		}
		fmt.Fprintf(&buf, "%s %d\x00", o.Type(), o.Size())
		r, err := o.Reader()
		if err != nil {
			return nil, err
		}
		n, err := io.Copy(&buf, io.LimitReader(r, MaxEvidenceBytes+1))
		r.Close()
		if err != nil {
			return nil, err
		}
		if n != o.Size() {
			return nil, fmt.Errorf("%s %s holds %d bytes, not the %d it declares", o.Type(), o.Hash(), n, o.Size())
		}
		if buf.Len() > MaxEvidenceBytes {
			return nil, fmt.Errorf("signature evidence is more than %d bytes", MaxEvidenceBytes)
		}
	}
	return buf.Bytes(), nil
}

// DecodeEvidence reads what EncodeEvidence wrote: one commit and at most
// one tag, each decoded by go-git from exactly its bytes, so each
// object's Hash is the SHA-1 of what was carried. Use Covers before
// Verify: decoding checks the form, not what the objects vouch for.
func DecodeEvidence(data []byte) (Signed, error) {
	var s Signed
	if len(data) > MaxEvidenceBytes {
		return s, fmt.Errorf("%w: it is %d bytes, more than the %d fledge reads", ErrNoEvidence, len(data), MaxEvidenceBytes)
	}
	for len(data) > 0 {
		head, rest, ok := bytes.Cut(data, []byte{0})
		typ, size, ok2 := bytes.Cut(head, []byte{' '})
		n, err := strconv.Atoi(string(size))
		if !ok || !ok2 || err != nil || n < 0 || n > len(rest) {
			return s, fmt.Errorf("%w: it is not a sequence of git objects", ErrNoEvidence)
		}
		t, err := plumbing.ParseObjectType(string(typ))
		if err != nil {
			return s, fmt.Errorf("%w: %v", ErrNoEvidence, err)
		}
		o := &plumbing.MemoryObject{}
		o.SetType(t)
		o.Write(rest[:n])
		data = rest[n:]
		switch {
		case t == plumbing.CommitObject && s.Commit == nil:
			s.Commit = &object.Commit{}
			err = s.Commit.Decode(o)
		case t == plumbing.TagObject && s.Tag == nil:
			s.Tag = &object.Tag{}
			err = s.Tag.Decode(o)
		default:
			return s, fmt.Errorf("%w: it holds a %s where one commit and at most one tag belong", ErrNoEvidence, t)
		}
		if err != nil {
			return s, fmt.Errorf("%w: %s: %v", ErrNoEvidence, t, err)
		}
	}
	if s.Commit == nil {
		return s, fmt.Errorf("%w: it holds no commit", ErrNoEvidence)
	}
	return s, nil
}

// Covers checks that decoded evidence vouches for commit and for the tree
// at dir: the commit object is commit, its tree line is dir's git tree
// (computed as git would, without its .git), and the tag, if any, points
// at that commit. Only then does Verify say who signed that tree. A tree
// git would not hash the same way (a file the origin had and fledge
// dropped, an empty directory's content aside) fails here: it is then
// unsigned, not trusted.
func Covers(s Signed, commit, dir string) error {
	if s.Commit == nil {
		return fmt.Errorf("%w: it holds no commit", ErrNoEvidence)
	}
	if got := s.Commit.Hash.String(); got != commit {
		return fmt.Errorf("%w: its commit object is %s, not the commit %s the artifact names", ErrNoEvidence, got, commit)
	}
	if t := s.Tag; t != nil && (t.TargetType != plumbing.CommitObject || t.Target != s.Commit.Hash) {
		return fmt.Errorf("%w: its tag %s points at %s %s, not at commit %s", ErrNoEvidence, t.Name, t.TargetType, t.Target, commit)
	}
	tree, err := GitTree(dir)
	if err != nil {
		return fmt.Errorf("%w: the git tree of the files cannot be computed: %v", ErrNoEvidence, err)
	}
	if tree != s.Commit.TreeHash {
		return fmt.Errorf("%w: the files make the git tree %s, and commit %s has tree %s (changed, or a file of the origin's was not carried)", ErrNoEvidence, tree, short(s.Commit.Hash), s.Commit.TreeHash)
	}
	return nil
}

// GitTree is the id git gives the tree at dir (SHA-1 object format): its
// root .git is not part of it, nor are directories with no file below
// them (git does not record them). Regular files are blobs of mode
// 100644, or 100755 when executable; symlinks are blobs of their target,
// mode 120000. Anything else is an error.
func GitTree(dir string) (plumbing.Hash, error) {
	h, empty, err := gitTree(dir, true)
	if err == nil && empty {
		h, err = encode(&object.Tree{})
	}
	return h, err
}

func gitTree(dir string, root bool) (plumbing.Hash, bool, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	var t object.Tree
	for _, e := range ents {
		if root && e.Name() == ".git" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		var te object.TreeEntry
		switch typ := e.Type(); {
		case typ.IsDir():
			h, empty, err := gitTree(p, false)
			if err != nil {
				return h, false, err
			}
			if empty {
				continue
			}
			te = object.TreeEntry{Name: e.Name(), Mode: filemode.Dir, Hash: h}
		case typ&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			te = object.TreeEntry{Name: e.Name(), Mode: filemode.Symlink, Hash: plumbing.ComputeHash(plumbing.BlobObject, []byte(filepath.ToSlash(target)))}
		case typ.IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			info, err := e.Info()
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			te = object.TreeEntry{Name: e.Name(), Mode: filemode.Regular, Hash: plumbing.ComputeHash(plumbing.BlobObject, data)}
			if info.Mode().Perm()&0o111 != 0 {
				te.Mode = filemode.Executable
			}
		default:
			return plumbing.ZeroHash, false, fmt.Errorf("%s is a special file, which git does not store", p)
		}
		t.Entries = append(t.Entries, te)
	}
	if len(t.Entries) == 0 {
		return plumbing.ZeroHash, true, nil
	}
	// git orders entries by name, a directory's name as if it ended in '/'.
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
	h, err := encode(&t)
	return h, false, err
}

func encode(t *object.Tree) (plumbing.Hash, error) {
	o := &plumbing.MemoryObject{}
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return o.Hash(), nil
}

package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

// RefKind says what a requested ref turned out to be.
type RefKind string

// Ref kinds.
const (
	KindDefault RefKind = "default" // no ref given: the remote's HEAD branch
	KindTag     RefKind = "tag"
	KindBranch  RefKind = "branch"
	KindCommit  RefKind = "commit"
)

// Revision is a resolved ref: what to check out and the commit it names.
type Revision struct {
	Ref     string // as requested ("" for the default branch)
	Kind    RefKind
	RefName plumbing.ReferenceName // the remote ref to fetch ("" for a bare commit)
	// Object is the hash the remote advertised for RefName: the commit, or
	// for an annotated tag the tag object.
	Object string
	// Commit is the full commit, when the listing made it known (branches,
	// peeled tags, full hashes).
	Commit string
}

// ErrRefNotFound is wrapped when a requested ref names nothing on the remote.
var ErrRefNotFound = errors.New("ref not found")

// Options configure remote access.
type Options struct {
	// Auth returns credentials for a URL, or nil.
	Auth func(url string) transport.AuthMethod
	// Progress receives the remote's progress messages (nil: none). When
	// it also implements Tracker, it is told when each transfer starts and
	// ends: a file:// remote, and a listing, send no messages at all.
	Progress io.Writer
	// IdleTimeout is how long a listing or a fetch waits for the server to
	// send anything (to connect, to answer, to send the next piece of the
	// pack) before it fails with a *TimeoutError; the time a long clone
	// takes while data keeps arriving does not count. 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxTreeBytes and MaxTreeFiles bound a checkout: a revision whose
	// files come to more bytes or more files is refused with a
	// *TooLargeError before any is written, and so is a server that sends
	// more than such a tree needs. 0 means DefaultMaxTreeBytes and
	// DefaultMaxTreeFiles.
	MaxTreeBytes int64
	MaxTreeFiles int
}

// Tracker is told when a transfer with the remote starts and when it ends
// (in the order of the calls, possibly from several goroutines).
type Tracker interface {
	TransferStarted(url string)
	TransferEnded(url string)
}

// track reports a transfer's start to o.Progress, when it tracks them,
// and returns what reports its end.
func (o Options) track(url string) func() {
	t, ok := o.Progress.(Tracker)
	if !ok {
		return func() {}
	}
	t.TransferStarted(url)
	return func() { t.TransferEnded(url) }
}

// TokenAuth returns an Options.Auth that sends the token token(url)
// returns the way GitHub (and most git hosts) take one over https: HTTP
// basic auth with the user x-access-token. Where token returns "", nothing
// is sent.
func TokenAuth(token func(url string) string) func(string) transport.AuthMethod {
	return func(url string) transport.AuthMethod {
		if t := token(url); t != "" {
			return &githttp.BasicAuth{Username: "x-access-token", Password: t}
		}
		return nil
	}
}

func (o Options) auth(url string) transport.AuthMethod {
	if o.Auth == nil {
		return nil
	}
	return o.Auth(url)
}

// ListRefs lists the remote's refs without cloning, with annotated tags
// peeled (their "^{}" entries name the commit).
func ListRefs(ctx context.Context, url string, o Options) ([]*plumbing.Reference, error) {
	w := watch(ctx, o.IdleTimeout)
	defer w.stop()
	op, err := newOp(url, o.auth(url), w)
	if err != nil {
		return nil, fmt.Errorf("list refs of %s: %w", url, err)
	}
	defer o.track(url)()
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{opURL}})
	refs, err := rem.ListContext(w.ctx, &git.ListOptions{Auth: op, PeelingOption: git.AppendPeeled})
	if err = w.result(err); err != nil {
		return nil, explain("list refs of", url, err)
	}
	return refs, nil
}

var hexRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,40}$`) })

// Resolve finds ref among refs: a tag, then a branch, then a commit hash.
// The empty ref is the remote's default branch.
func Resolve(refs []*plumbing.Reference, ref string) (Revision, error) {
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, r := range refs {
		byName[r.Name()] = r
	}
	if ref == "" {
		head, ok := byName[plumbing.HEAD]
		if !ok {
			return Revision{}, fmt.Errorf("the remote has no HEAD: %w", ErrRefNotFound)
		}
		name := head.Target()
		if head.Type() == plumbing.HashReference {
			// No symref advertised: find the branch at HEAD's commit.
			for _, r := range refs {
				if r.Name().IsBranch() && r.Hash() == head.Hash() {
					name = r.Name()
					break
				}
			}
			return Revision{Kind: KindDefault, RefName: name, Object: head.Hash().String(), Commit: head.Hash().String()}, nil
		}
		target, ok := byName[name]
		if !ok {
			return Revision{}, fmt.Errorf("the remote's HEAD points at %s, which it does not have: %w", name, ErrRefNotFound)
		}
		return Revision{Kind: KindDefault, RefName: name, Object: target.Hash().String(), Commit: target.Hash().String()}, nil
	}
	if err := CheckRef(ref); err != nil {
		return Revision{}, err
	}
	tag := plumbing.NewTagReferenceName(ref)
	if r, ok := byName[tag]; ok {
		rev := Revision{Ref: ref, Kind: KindTag, RefName: tag, Object: r.Hash().String()}
		if peeled, ok := byName[plumbing.ReferenceName(string(tag)+"^{}")]; ok {
			rev.Commit = peeled.Hash().String()
		}
		return rev, nil
	}
	if r, ok := byName[plumbing.NewBranchReferenceName(ref)]; ok {
		return Revision{Ref: ref, Kind: KindBranch, RefName: r.Name(), Object: r.Hash().String(), Commit: r.Hash().String()}, nil
	}
	if hexRe().MatchString(strings.ToLower(ref)) {
		rev := Revision{Ref: ref, Kind: KindCommit}
		if len(ref) == 40 {
			rev.Commit = strings.ToLower(ref)
		}
		return rev, nil
	}
	return Revision{}, fmt.Errorf("%q is not a tag, branch or commit of the remote: %w", ref, ErrRefNotFound)
}

// CheckRef refuses refs that could be read as options or that git itself
// would not accept as a ref name.
func CheckRef(ref string) error {
	switch {
	case strings.HasPrefix(ref, "-"):
		return fmt.Errorf("ref %q starts with '-'", ref)
	case len(ref) > 255:
		return fmt.Errorf("ref is longer than 255 characters")
	case strings.ContainsAny(ref, " ~^:?*[\\\x7f") || strings.Contains(ref, "..") || strings.Contains(ref, "@{"):
		return fmt.Errorf("ref %q contains characters git does not allow in ref names", ref)
	}
	for _, r := range ref {
		if r < 0x20 {
			return fmt.Errorf("ref %q contains control characters", ref)
		}
	}
	return nil
}

// Checkout fetches rev from url into dir (which must not exist) and checks
// it out. It returns the full commit checked out, which is verified to be
// rev.Commit when that was known. Submodules are never fetched.
//
// A repository on this machine (file://, or a plain path) is not cloned:
// its objects are read in place, and dir/.git records only the commit (and
// the tag) checked out, enough for Made. See localsource.go.
func Checkout(ctx context.Context, url string, rev Revision, dir string, o Options) (string, error) {
	h, _, err := checkout(ctx, url, rev, dir, o, 1)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// checkout is Checkout fetching depth commits of a branch or tag's history
// (0: all of it). It returns the commit checked out and where its history
// can be read: the clone, or a local source.
func checkout(ctx context.Context, url string, rev Revision, dir string, o Options, depth int) (plumbing.Hash, storer.EncodedObjectStorer, error) {
	if ep, err := transport.NewEndpoint(url); err == nil && ep.Protocol == "file" {
		defer o.track(url)()
		return checkoutLocal(ctx, url, ep, rev, dir, o)
	}
	h, err := clonedCheckout(ctx, url, rev, dir, o, depth)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	return h, repo.Storer, nil
}

// clonedCheckout clones url into dir and checks rev out.
func clonedCheckout(ctx context.Context, url string, rev Revision, dir string, o Options, depth int) (plumbing.Hash, error) {
	w := watch(ctx, o.IdleTimeout)
	w.maxDownload, w.maxTreeBytes = o.maxDownload(), o.maxTreeBytes()
	defer w.stop()
	op, err := newOp(url, o.auth(url), w)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("clone %s: %w", url, err)
	}
	defer o.track(url)()
	opts := &git.CloneOptions{
		URL:               opURL,
		Auth:              op,
		Progress:          o.Progress,
		RecurseSubmodules: git.NoRecurseSubmodules,
		Tags:              git.NoTags,
		// Checked out below, once the commit is known to be the one
		// asked for.
		NoCheckout: true,
	}
	if rev.RefName != "" {
		opts.ReferenceName = rev.RefName
		opts.SingleBranch = true
		opts.Depth = depth
	} else {
		// A bare commit: fetch every branch and tag (it may be reachable
		// only from a tag), then check it out.
		opts.Tags = git.AllTags
	}
	repo, err := clone(w.ctx, dir, opts)
	if err = w.result(err); err != nil {
		return plumbing.ZeroHash, explain("clone", url, err)
	}
	var want plumbing.Hash
	if rev.RefName == "" {
		h, err := repo.ResolveRevision(plumbing.Revision(rev.Ref))
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("commit %q in %s: %w", rev.Ref, url, ErrRefNotFound)
		}
		want = *h
	} else {
		if rev.Object != "" {
			if r, err := repo.Reference(rev.RefName, false); err == nil && r.Hash().String() != rev.Object {
				return plumbing.ZeroHash, fmt.Errorf("%s: %s moved while fetching (listed %s, fetched %s)", url, rev.RefName.Short(), rev.Object, r.Hash())
			}
		}
		head, err := repo.Head()
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read HEAD of clone: %w", err)
		}
		want = head.Hash()
	}
	if rev.Commit != "" && want.String() != rev.Commit {
		return plumbing.ZeroHash, fmt.Errorf("%s moved while fetching: expected commit %s, got %s", url, rev.Commit, want)
	}
	if err := checkTree(repo, want, o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s at %s: %w", url, want, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wt.Checkout(&git.CheckoutOptions{Hash: want, Force: true}); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("check out %s: %w", want, err)
	}
	return want, nil
}

// largeObject is the size above which an object is streamed between the
// pack and the file it is checked out to, rather than read into memory
// whole: a plugin with a 600 MB file must not take gigabytes to install.
const largeObject = 1 << 20

// clone is git.PlainCloneContext with storage that streams large objects.
func clone(ctx context.Context, dir string, o *git.CloneOptions) (*git.Repository, error) {
	wt := osfs.New(dir)
	dot, err := wt.Chroot(git.GitDirName)
	if err != nil {
		return nil, err
	}
	return git.CloneContext(ctx, newStorage(dot), wt, o)
}

// RemoveGitDir deletes dir/.git so the installed tree holds only the
// plugin's files.
func RemoveGitDir(dir string) error {
	return os.RemoveAll(filepath.Join(dir, ".git"))
}

package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	gitproto "github.com/go-git/go-git/v5/plumbing/transport/git"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// go-git v5 chooses a transport by URL scheme from a process-wide table
// (client.Protocols) and offers no way to choose one per operation. Rather
// than replace its transports for the whole process, which would change
// every other use of go-git in it (publish's push, a project's metadata),
// gitfetch adds one transport under a scheme of its own and hands go-git
// that scheme's URL, with an AuthMethod (the one value go-git passes from
// an operation to its transport unchanged) that carries the operation: its
// real endpoint, the transport chosen for it, its credentials and its
// watchdog. go-git's own transports stay as go-git ships them.

// scheme is the URL scheme of gitfetch's operations, and opURL the URL
// go-git is given for every one.
const (
	scheme = "fledge-gitfetch"
	opURL  = scheme + "://operation"
)

// The registration writes go-git's table, which go-git reads without a
// lock: it happens at package initialisation, before any goroutine can be
// reading the table, rather than on first use.
func init() { client.InstallProtocol(scheme, dispatcher{}) }

// op is one listing or clone: the go-git AuthMethod that carries it to the
// dispatcher.
type op struct {
	ep   *transport.Endpoint
	t    transport.Transport
	auth transport.AuthMethod // the real credentials, or nil
	w    *watchdog
}

func (*op) Name() string   { return scheme }
func (*op) String() string { return scheme }

// newOp prepares an operation on url under watchdog w.
func newOp(url string, auth transport.AuthMethod, w *watchdog) (*op, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, err
	}
	t, err := transportFor(ep)
	if err != nil {
		return nil, err
	}
	return &op{ep: ep, t: t, auth: auth, w: w}, nil
}

// transportFor chooses an operation's transport: go-git's own for the
// network, and for file:// its in-process server (go-git's file transport
// would run the git-upload-pack binary), serving depth-1 clones itself.
func transportFor(ep *transport.Endpoint) (transport.Transport, error) {
	switch ep.Protocol {
	case "http", "https":
		return githttp.DefaultClient, nil
	case "ssh":
		return gitssh.DefaultClient, nil
	case "git":
		return gitproto.DefaultClient, nil
	case "file":
		return peelingTransport{server.NewServer(repoLoader{})}, nil
	}
	return nil, fmt.Errorf("unsupported scheme %q", ep.Protocol)
}

// dispatcher is the transport registered under scheme: it opens each
// session on the operation's own transport and endpoint, under its
// watchdog.
type dispatcher struct{}

func (dispatcher) NewUploadPackSession(_ *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	o, ok := auth.(*op)
	if !ok {
		return nil, fmt.Errorf("%s:// is gitfetch's own scheme, for its operations only", scheme)
	}
	v, err := o.w.wait(func() (any, error) {
		return o.t.NewUploadPackSession(o.ep, o.auth)
	}, func(v any) { v.(transport.UploadPackSession).Close() })
	if err != nil {
		return nil, err
	}
	return &watchedSession{UploadPackSession: v.(transport.UploadPackSession), w: o.w}, nil
}

func (dispatcher) NewReceivePackSession(*transport.Endpoint, transport.AuthMethod) (transport.ReceivePackSession, error) {
	return nil, errors.New("gitfetch does not push")
}

// peelingTransport adds what go-git's in-process server leaves out of its
// reference advertisement: the commit each annotated tag points at (the
// "refs/tags/X^{}" entries every git server sends). Without them a listing
// cannot tell an annotated tag's commit from its tag object.
type peelingTransport struct{ transport.Transport }

func (t peelingTransport) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	s, err := t.Transport.NewUploadPackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	st, err := repoLoader{}.Load(ep)
	if err != nil {
		return nil, err
	}
	return &peelingSession{UploadPackSession: s, storer: st}, nil
}

type peelingSession struct {
	transport.UploadPackSession
	storer storer.Storer
}

func (s *peelingSession) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.AdvertisedReferencesContext(context.Background())
}

func (s *peelingSession) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	ar, err := s.UploadPackSession.AdvertisedReferencesContext(ctx)
	if err != nil {
		return nil, err
	}
	if ar.Peeled == nil {
		ar.Peeled = map[string]plumbing.Hash{}
	}
	for name, h := range ar.References {
		if !plumbing.ReferenceName(name).IsTag() {
			continue
		}
		tag, err := object.GetTag(s.storer, h)
		if err != nil {
			continue // a lightweight tag: it names the commit itself
		}
		if c, err := tag.Commit(); err == nil {
			ar.Peeled[name] = c.Hash
		}
	}
	return ar, nil
}

// UploadPack serves a depth-1 clone itself, which go-git's in-process
// server cannot: the wanted commits and their trees only, with those
// commits reported as the shallow boundary, as git upload-pack does. So a
// file:// install transfers one revision, not the repository's history.
// Every other request goes to the server unchanged.
func (s *peelingSession) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if req.Depth != packp.DepthCommits(1) || len(req.Haves) > 0 || len(req.Shallows) > 0 || len(req.Wants) == 0 {
		return s.UploadPackSession.UploadPack(ctx, req)
	}
	seen := map[plumbing.Hash]bool{}
	var objs, shallows []plumbing.Hash
	for _, w := range req.Wants {
		// An annotated tag is sent with the commit it names.
		for depth := 0; ; depth++ {
			tag, terr := object.GetTag(s.storer, w)
			if terr != nil || depth > 8 {
				break
			}
			if !seen[w] {
				seen[w] = true
				objs = append(objs, w)
			}
			w = tag.Target
		}
		c, err := object.GetCommit(s.storer, w)
		if err != nil { // a tag of a tree or blob: the whole history, the server's way
			return s.UploadPackSession.UploadPack(ctx, deepen(req))
		}
		if seen[c.Hash] {
			continue
		}
		seen[c.Hash] = true
		objs = append(objs, c.Hash)
		if c.NumParents() > 0 {
			shallows = append(shallows, c.Hash)
		}
		if objs, err = treeObjects(s.storer, c.TreeHash, seen, objs); err != nil {
			return nil, err
		}
	}
	pr, pw := io.Pipe()
	e := packfile.NewEncoder(pw, s.storer, false)
	go func() {
		_, err := e.Encode(objs, 10)
		pw.CloseWithError(err)
	}()
	resp := packp.NewUploadPackResponseWithPackfile(req, newContextPipe(ctx, pr))
	resp.ShallowUpdate.Shallows = shallows
	return resp, nil
}

// contextPipe is the reading end of the pack's pipe, ended by ctx: closing
// it unblocks a read at once. (go-git's context reader does the same with
// a goroutine and a buffer as large as the read for every read: gigabytes
// of garbage for a large pack.)
type contextPipe struct {
	*io.PipeReader
	ctx  context.Context
	stop func() bool
}

func newContextPipe(ctx context.Context, pr *io.PipeReader) *contextPipe {
	return &contextPipe{PipeReader: pr, ctx: ctx, stop: context.AfterFunc(ctx, func() { pr.CloseWithError(ctx.Err()) })}
}

func (p *contextPipe) Read(b []byte) (int, error) {
	n, err := p.PipeReader.Read(b)
	if err != nil && p.ctx.Err() != nil {
		err = p.ctx.Err()
	}
	return n, err
}

func (p *contextPipe) Close() error {
	p.stop()
	return p.PipeReader.Close()
}

// deepen is req without its depth, which the in-process server refuses.
func deepen(req *packp.UploadPackRequest) *packp.UploadPackRequest {
	r := *req
	r.Depth = packp.DepthCommits(0)
	r.Capabilities = capability.NewList()
	for _, c := range req.Capabilities.All() {
		if c != capability.Shallow {
			_ = r.Capabilities.Set(c, req.Capabilities.Get(c)...)
		}
	}
	return &r
}

// treeObjects appends tree h and everything under it (submodule entries
// name commits of other repositories and are left out, as git does).
func treeObjects(st storer.EncodedObjectStorer, h plumbing.Hash, seen map[plumbing.Hash]bool, objs []plumbing.Hash) ([]plumbing.Hash, error) {
	if seen[h] {
		return objs, nil
	}
	seen[h] = true
	objs = append(objs, h)
	t, err := object.GetTree(st, h)
	if err != nil {
		return nil, err
	}
	for _, e := range t.Entries {
		switch {
		case e.Mode == filemode.Submodule:
		case e.Mode == filemode.Dir:
			if objs, err = treeObjects(st, e.Hash, seen, objs); err != nil {
				return nil, err
			}
		case !seen[e.Hash]:
			seen[e.Hash] = true
			objs = append(objs, e.Hash)
		}
	}
	return objs, nil
}

// repoLoader opens a repository on disk for the in-process server, bare or
// with a .git directory.
type repoLoader struct{}

func (repoLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	root := localFS(ep.Path)
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

// newStorage is on-disk object storage that streams large objects (see
// largeObject) instead of reading them into memory whole.
func newStorage(dot billy.Filesystem) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(dot, cache.NewObjectLRUDefault(), filesystem.Options{LargeObjectThreshold: largeObject})
}

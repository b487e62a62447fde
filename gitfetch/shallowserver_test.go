package gitfetch

import (
	"context"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// shallowSession is the in-process server's session, with the peeled tags
// of peelingSession, answering depth-1 clones as git upload-pack (and
// every forge) does, which go-git's server cannot: the wanted commits and
// their trees only, with those commits reported as the shallow boundary.
// The loopback servers of the transport tests serve through it, so a
// network checkout in a test fetches what it fetches from a real server.
// Every other request goes to the server unchanged.
type shallowSession struct{ *peelingSession }

func (s shallowSession) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
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

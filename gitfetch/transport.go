package gitfetch

import (
	"context"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

var installOnce sync.Once

// installFileTransport replaces go-git's file:// transport, which runs the
// git-upload-pack binary, with go-git's in-process server.
func installFileTransport() {
	installOnce.Do(func() {
		client.InstallProtocol("file", peelingTransport{server.NewServer(repoLoader{})})
	})
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

// repoLoader opens a repository on disk for the in-process server, bare or
// with a .git directory.
type repoLoader struct{}

func (repoLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	root := osfs.New(ep.Path)
	if fi, err := root.Stat(".git"); err == nil && fi.IsDir() {
		dot, err := root.Chroot(".git")
		if err != nil {
			return nil, err
		}
		return filesystem.NewStorage(dot, cache.NewObjectLRUDefault()), nil
	}
	if _, err := root.Stat("HEAD"); err == nil {
		if _, err := root.Stat("objects"); err == nil {
			return filesystem.NewStorage(root, cache.NewObjectLRUDefault()), nil
		}
	}
	return nil, transport.ErrRepositoryNotFound
}

package gitfetch

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
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
// would run the git-upload-pack binary), which lists refs (a checkout from
// disk needs no transport: see localsource.go).
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

// repoLoader opens a repository on disk for the in-process server, bare or
// with a .git directory.
type repoLoader struct{}

func (repoLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	return openSource(ep.Path)
}

// newStorage is on-disk object storage that streams large objects (see
// largeObject) instead of reading them into memory whole.
func newStorage(dot billy.Filesystem) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(dot, cache.NewObjectLRUDefault(), filesystem.Options{LargeObjectThreshold: largeObject})
}

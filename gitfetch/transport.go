package gitfetch

import (
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
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
		client.InstallProtocol("file", server.NewServer(repoLoader{}))
	})
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

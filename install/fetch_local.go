package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/trust"
)

// localFetcher installs a directory on this machine: live-linked, or copied
// with Installer.Copy. It has no refs: what is there is what is installed.
type localFetcher struct {
	in  *Installer
	src registry.Source
}

func (l *localFetcher) source() registry.Source { return l.src }

// locate resolves the directory's real path, which is what is recorded and
// what the policy matches, and refuses one inside fledge's home.
func (l *localFetcher) locate() error {
	src := l.src
	real, err := filepath.EvalSymlinks(src.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return &SourceError{Source: src.Raw, Err: fmt.Errorf("local plugin %s: %w", src.Raw, ErrNoSuchPath)}
	}
	if err != nil {
		return &SourceError{Source: src.Raw, Err: fmt.Errorf("local plugin %s: %w", src.Raw, err)}
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return &SourceError{Source: src.Raw, Err: fmt.Errorf("local plugin %s: %w", src.Raw, ErrNotDirectory)}
	}
	if home, err := filepath.EvalSymlinks(l.in.Paths.Root()); err == nil && manifest.Within(home, real) {
		return &SourceError{Source: src.Raw, Err: fmt.Errorf("local plugin %s is inside fledge's home (%s): install from the plugin's own source", src.Path, l.in.Paths.Root())}
	}
	l.src.Path, l.src.Display = real, real
	return nil
}

func (l *localFetcher) identity(registryName string) policy.Source {
	return policy.Source{Path: l.src.Path, Registry: registryName}
}

func (l *localFetcher) tier(trust.Config) trust.Tier { return trust.Local }

func (l *localFetcher) remote() bool { return false }

func (l *localFetcher) listRefs(context.Context) ([]*plumbing.Reference, error) { return nil, nil }

func (l *localFetcher) resolve([]*plumbing.Reference, string) (gitfetch.Revision, error) {
	return gitfetch.Revision{}, nil
}

func (l *localFetcher) checkout(_ context.Context, _ gitfetch.Revision, tree string) (*fetched, error) {
	real := l.src.Path
	f := &fetched{src: l.src, dir: real, kind: lockfile.KindLocalLink, commit: localCommit(real), tier: l.tier(l.in.trust())}
	if l.in.Copy {
		l.in.logf("Copying %s...\n", termsafe.Escape(real))
		if err := copyTree(real, tree); err != nil {
			return nil, fmt.Errorf("copy %s: %w", real, err)
		}
		f.dir, f.kind = tree, lockfile.KindLocalCopy
	}
	return f, nil
}

// localCommit is the HEAD commit of a local plugin that is a git work tree,
// or "".
func localCommit(dir string) string {
	repo, err := gitfetch.OpenLocal(dir)
	if err != nil {
		return ""
	}
	head, err := repo.Head()
	if err != nil {
		return ""
	}
	return head.Hash().String()
}

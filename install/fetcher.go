package install

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/trust"
)

// A fetcher gets plugins from one kind of source onto this machine: a git
// repository (fetch_git.go), a local directory (fetch_local.go) or an OCI
// registry's artifact (fetch_oci.go). Install,
// update and sync reach every kind through it, and newFetcher is the one
// place that picks the kind (as helm's installer.NewForSource does), so a
// new kind of source is a file with its fetcher and a case there.
//
// The steps run in this order: locate, then the policy's source check on
// identity (nothing has been contacted yet), then listRefs, resolve and
// checkout.
type fetcher interface {
	// source is the source fetched; after locate, as it is recorded (a
	// local directory by its real path).
	source() registry.Source
	// locate checks what it can about the source without contacting
	// anything: that a local directory exists and is a plugin's own.
	locate() error
	// identity is what the admin policy's source rules match;
	// registryName is the name the source was looked up by, if any.
	identity(registryName string) policy.Source
	// tier is the source's trust tier under t.
	tier(t trust.Config) trust.Tier
	// remote reports whether fetching contacts another machine (and so
	// is shown as it starts).
	remote() bool
	// listRefs lists what the source can be pinned to (tags, branches);
	// nil for a kind without refs.
	listRefs(ctx context.Context) ([]*plumbing.Reference, error)
	// resolve picks the revision ref names among refs ("" for the
	// default), checked against the policy's pin rule.
	resolve(refs []*plumbing.Reference, ref string) (gitfetch.Revision, error)
	// checkout puts the resolved revision's files in tree (or, for a live
	// link, names the directory where they are).
	checkout(ctx context.Context, rev gitfetch.Revision, tree string) (*fetched, error)
}

// A historyFetcher can also fetch a revision with its history, to tell
// whether it descends from the installed one (a git branch's head must).
type historyFetcher interface {
	checkoutFrom(ctx context.Context, rev gitfetch.Revision, tree, since string) (f *fetched, descends bool, err error)
}

// newFetcher picks the fetcher for src's kind.
func (in *Installer) newFetcher(src registry.Source) (fetcher, error) {
	switch src.Kind {
	case registry.SourceGit:
		if m, ok := in.policy().MirrorFor(src.URL); ok {
			return in.mirrorFetcher(src, m)
		}
		return &gitFetcher{in: in, src: src}, nil
	case registry.SourceLocal:
		return &localFetcher{in: in, src: src}, nil
	case registry.SourceOCI:
		return &ociFetcher{in: in, src: src}, nil
	}
	return nil, &SourceError{Source: src.Raw, Err: fmt.Errorf("%q names no source fledge can fetch (a %s source must be looked up first)", src.Raw, src.Kind)}
}

// fetch gets src into tree through its kind's fetcher: located, allowed by
// the policy, resolved and checked out.
func (in *Installer) fetch(ctx context.Context, src registry.Source, regName, tree string) (*fetched, error) {
	fe, err := in.newFetcher(src)
	if err != nil {
		return nil, err
	}
	if err := fe.locate(); err != nil {
		return nil, err
	}
	// A source the policy denies is never contacted; a rule pinned to a
	// commit is judged again once the ref resolves, before any fetch.
	id := fe.identity(regName)
	if err := in.checkSource(fe.source().String(), pending(id)); err != nil {
		return nil, err
	}
	if m, ok := fe.(mirrored); ok && m.mirror() != "" {
		in.logf("Fetching %s from its mirror %s (%s)...\n", termsafe.Escape(fe.source().String()), termsafe.Escape(registry.RedactURL(m.mirror())), fe.tier(in.trust()))
	} else if fe.remote() {
		in.logf("Fetching %s (%s)...\n", termsafe.Escape(fe.source().String()), fe.tier(in.trust()))
	}
	refs, err := fe.listRefs(ctx)
	if err != nil {
		return nil, err
	}
	rev, err := fe.resolve(refs, src.Ref)
	if err != nil {
		return nil, err
	}
	if err := in.checkResolved(fe.source().String(), id, listedCommit(rev)); err != nil {
		return nil, err
	}
	f, err := fe.checkout(ctx, rev, tree)
	if f != nil {
		f.registry, f.policyIDs = regName, []policy.Source{id}
		if err == nil {
			// What was checked out is judged too: an abbreviated commit,
			// a local directory, a tag whose listing said less.
			err = in.checkResolved(fe.source().String(), id, f.commit)
		}
	}
	return f, err
}

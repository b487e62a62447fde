package install

import (
	"context"
	"errors"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/provenance"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/trust"
)

// gitFetcher fetches a git repository (a URL or owner/repo shorthand) at a
// tag, branch, commit or semver constraint, into a tree without its .git.
type gitFetcher struct {
	in  *Installer
	src registry.Source
	// mirrorURL, when set, is fetched instead of src.URL: a git mirror a
	// mirror rule names. What is recorded and shown stays src.
	mirrorURL string
}

// url is what is fetched.
func (g *gitFetcher) url() string {
	if g.mirrorURL != "" {
		return g.mirrorURL
	}
	return g.src.URL
}

func (g *gitFetcher) mirror() string { return g.mirrorURL }

func (g *gitFetcher) source() registry.Source { return g.src }

func (g *gitFetcher) locate() error { return nil }

func (g *gitFetcher) identity(registryName string) policy.Source {
	return policy.Source{URL: registry.RedactURL(g.src.URL), Registry: registryName}
}

func (g *gitFetcher) tier(t trust.Config) trust.Tier { return t.Of(g.src.URL) }

func (g *gitFetcher) remote() bool { return true }

func (g *gitFetcher) listRefs(ctx context.Context) ([]*plumbing.Reference, error) {
	refs, err := gitfetch.ListRefs(ctx, g.url(), g.in.git())
	if err != nil {
		return nil, &FetchError{Source: g.src.String(), Err: registry.RedactError(err)}
	}
	return refs, nil
}

func (g *gitFetcher) resolve(refs []*plumbing.Reference, ref string) (gitfetch.Revision, error) {
	rev, err := resolveRef(refs, ref)
	if err != nil {
		return rev, &FetchError{Source: g.src.String(), Err: err}
	}
	return rev, g.in.checkPin(g.src.String(), string(rev.Kind), ref)
}

func (g *gitFetcher) checkout(ctx context.Context, rev gitfetch.Revision, tree string) (*fetched, error) {
	commit, err := gitfetch.Checkout(ctx, g.url(), rev, tree, g.in.git())
	if err != nil {
		return nil, &FetchError{Source: g.src.String(), Err: registry.RedactError(err)}
	}
	var made time.Time
	if rev.RefName.IsTag() && g.in.policy().MinTagAge() > 0 {
		// Read before the .git directory goes; unknown reads as too young.
		made, _ = gitfetch.Made(tree, rev, commit)
	}
	f, err := g.fetchedTree(rev, tree, commit)
	if f != nil {
		f.made = made
	}
	return f, err
}

// checkoutFrom fetches a branch head with its history into tree and
// reports whether it descends from the installed commit since.
func (g *gitFetcher) checkoutFrom(ctx context.Context, rev gitfetch.Revision, tree, since string) (*fetched, bool, error) {
	commit, descends, err := gitfetch.CheckoutFrom(ctx, g.url(), rev, tree, g.in.git(), since)
	if err != nil {
		return nil, false, &FetchError{Source: g.src.String(), Err: registry.RedactError(err)}
	}
	f, err := g.fetchedTree(rev, tree, commit)
	return f, descends, err
}

// fetchedTree is a checked-out revision in tree, without its .git.
func (g *gitFetcher) fetchedTree(rev gitfetch.Revision, tree, commit string) (*fetched, error) {
	// Who signed it is read from the fetch's own objects, before they go.
	prov, notes, err := g.in.verifyCheckout(tree, rev, commit)
	var se *provenance.SignersError
	if errors.As(err, &se) {
		return nil, err // the settings', not the source's
	}
	if err != nil {
		return nil, &FetchError{Source: g.src.String(), Err: err}
	}
	at := short(commit)
	if rev.RefName.IsTag() {
		at = rev.RefName.Short() + " (" + at + ")"
	}
	g.in.logf("Provenance of %s: %s\n", at, prov.Describe())
	if err := gitfetch.RemoveGitDir(tree); err != nil {
		return nil, err
	}
	f := &fetched{src: g.src, dir: tree, kind: lockfile.KindGit, commit: commit, refKind: string(rev.Kind), tier: g.tier(g.in.trust()),
		prov: prov, provNotes: notes, mirror: g.mirrorURL}
	if rev.RefName.IsTag() {
		f.tag = rev.RefName.Short()
	}
	return f, nil
}

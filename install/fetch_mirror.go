package install

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/repourl"
)

// mirrored is a fetcher that fetches its source from a mirror a policy
// rule names; mirror is "" when it does not.
type mirrored interface{ mirror() string }

// mirrorFetcher fetches the git source src from the mirror m names: a git
// mirror is fetched as src would be; an OCI mirror holds what fledge
// plugins mirror pushed (tags: versions and commits). Either way src is
// what is recorded, shown and judged by the policy, and a recorded commit
// or tree hash is what the mirror must serve (sync checks both).
func (in *Installer) mirrorFetcher(src registry.Source, m policy.Mirror) (fetcher, error) {
	if !m.OCI {
		if _, err := repourl.Parse(m.URL); err != nil {
			return nil, &SourceError{Source: src.Raw, Err: fmt.Errorf("%s in %s maps %s to %q, which is not a git URL: %w", m.Rule, m.File, src.Display, m.URL, err)}
		}
		return &gitFetcher{in: in, src: src, mirrorURL: m.URL}, nil
	}
	ms, err := registry.ParseSource(m.URL, "")
	if err != nil || ms.Kind != registry.SourceOCI {
		return nil, &SourceError{Source: src.Raw, Err: fmt.Errorf("%s in %s maps %s to %q, which is not an OCI repository: %v", m.Rule, m.File, src.Display, m.URL, err)}
	}
	origin := src
	return &ociFetcher{in: in, src: ms, origin: &origin}, nil
}

// resolveMirrored maps a git ref to the mirror's tags: a full commit is
// its commit tag; a tag is the version tag of that name (or without its
// leading v); a semver constraint the highest version tag it matches; no
// ref the newest version. A branch has no tag in a mirror.
func (o *ociFetcher) resolveMirrored(refs []*plumbing.Reference, ref string) (gitfetch.Revision, error) {
	has := map[string]bool{}
	var tags []registry.Tag
	for _, r := range refs {
		has[r.Name().Short()] = true
		tags = append(tags, registry.Tag{Name: r.Name().Short()})
	}
	rev := gitfetch.Revision{Ref: ref}
	switch {
	case ref == "":
		rev.Ref, rev.Kind = newestTag(refs), gitfetch.KindDefault
	case isCommit(ref):
		rev.Kind = gitfetch.KindCommit
	case registry.IsConstraint(ref):
		tag, _, err := registry.ResolveConstraint(tags, ref, false)
		if err != nil {
			return rev, &FetchError{Source: o.origin.String(), Err: fmt.Errorf("mirror %s: %w", o.src.URL, err)}
		}
		rev.Ref, rev.Kind = tag, RefConstraint
	case has[ref]:
		rev.Kind = gitfetch.KindTag
	case has[trimV(ref)]:
		rev.Ref, rev.Kind = trimV(ref), gitfetch.KindTag
	default:
		return rev, &FetchError{Source: o.origin.String(), Err: fmt.Errorf("its mirror %s has no tag %q: a mirror holds versions and commits (fledge plugins mirror), not branches: %w", o.src.URL, ref, ociartifact.ErrNotFound)}
	}
	if rev.Ref == "" {
		return rev, &FetchError{Source: o.origin.String(), Err: fmt.Errorf("its mirror %s has no version tag: %w", o.src.URL, ociartifact.ErrNotFound)}
	}
	rev.RefName = plumbing.NewTagReferenceName(rev.Ref)
	return rev, o.in.checkPin(o.origin.String(), string(rev.Kind), ref)
}

// mirroredTree is an artifact pulled from the origin's OCI mirror as the
// origin's git tree: it must name a commit, and the origin it names must
// be this one.
func (o *ociFetcher) mirroredTree(rev gitfetch.Revision, p *ociartifact.Pulled, tree string) (*fetched, error) {
	origin := *o.origin
	if !isCommit(p.Info.Commit) {
		return nil, &FetchError{Source: origin.String(), Err: fmt.Errorf("its mirror's artifact %s (%s) names no commit", p.Digest, o.src.URL)}
	}
	if s := p.Info.Source; s != "" && !repourl.Same(s, origin.URL) {
		return nil, &FetchError{Source: origin.String(), Err: fmt.Errorf("its mirror's artifact %s (%s) is of %s, not of %s", p.Digest, o.src.URL, registry.RedactURL(s), registry.RedactURL(origin.URL))}
	}
	f := &fetched{src: origin, dir: tree, kind: lockfile.KindGit, commit: p.Info.Commit, refKind: string(rev.Kind),
		tier: o.tier(o.in.trust()), ociDigest: p.Digest, mirror: o.src.URL}
	if rev.Kind == gitfetch.KindTag {
		f.tag = origin.Ref
	}
	return f, nil
}

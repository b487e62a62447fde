package install

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/internal/semver"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/treehash"
	"github.com/corvidlabs/fledge-go/trust"
)

// RefDigest is the ref kind recorded for an OCI artifact pinned by digest.
const RefDigest = "digest"

// ociFetcher pulls a fledge plugin artifact from an OCI registry
// (oci://HOST[:PORT]/REPO:TAG or @sha256:…) through package ociartifact.
//
// With origin set it fetches that git source from its OCI mirror
// (fetch_mirror.go): what is recorded, shown and judged is the origin.
type ociFetcher struct {
	in     *Installer
	src    registry.Source
	target ociartifact.Source
	origin *registry.Source
}

func (o *ociFetcher) source() registry.Source {
	if o.origin != nil {
		return *o.origin
	}
	return o.src
}

func (o *ociFetcher) locate() error { return nil }

func (o *ociFetcher) identity(registryName string) policy.Source {
	if o.origin != nil {
		return policy.Source{URL: registry.RedactURL(o.origin.URL), Registry: registryName}
	}
	return policy.Source{OCI: o.src.Host + "/" + o.src.Repository, Registry: registryName}
}

// tier: an artifact's annotations name an origin, but nothing vouches for
// them, so the registry's repository is judged as any unknown source. A
// mirror the policy names stands for its origin.
func (o *ociFetcher) tier(t trust.Config) trust.Tier { return t.Of(o.source().URL) }

func (o *ociFetcher) mirror() string {
	if o.origin != nil {
		return o.src.URL
	}
	return ""
}

func (o *ociFetcher) remote() bool { return true }

func (o *ociFetcher) repo(ctx context.Context) (ociartifact.Source, error) {
	if o.target != nil {
		return o.target, nil
	}
	r, err := o.in.OCI.Repository(ctx, o.src.Host, o.src.Repository)
	if err != nil {
		return nil, &FetchError{Source: o.src.String(), Err: err}
	}
	o.target = r
	return r, nil
}

// listRefs lists the repository's tags when no tag or digest was named
// (to pick the newest release); a named one is resolved by the pull.
func (o *ociFetcher) listRefs(ctx context.Context) ([]*plumbing.Reference, error) {
	if o.src.Ref != "" && o.origin == nil {
		return nil, nil
	}
	t, err := o.repo(ctx)
	if err != nil {
		return nil, err
	}
	tags, err := ociartifact.Tags(ctx, t)
	if err != nil {
		return nil, &FetchError{Source: o.src.String(), Err: err}
	}
	refs := make([]*plumbing.Reference, 0, len(tags))
	for _, tag := range tags {
		refs = append(refs, plumbing.NewHashReference(plumbing.NewTagReferenceName(tag), plumbing.ZeroHash))
	}
	return refs, nil
}

// resolve takes a digest or a tag as named; with neither, the highest
// semver tag, or "latest" when no tag is a version.
func (o *ociFetcher) resolve(refs []*plumbing.Reference, ref string) (gitfetch.Revision, error) {
	if o.origin != nil {
		return o.resolveMirrored(refs, ref)
	}
	rev := gitfetch.Revision{Ref: ref, Kind: gitfetch.KindTag, RefName: plumbing.NewTagReferenceName(ref)}
	switch {
	case registry.IsDigest(ref):
		rev = gitfetch.Revision{Ref: ref, Kind: RefDigest}
	case ref == "":
		rev.Ref, rev.Kind = newestTag(refs), gitfetch.KindDefault
		if rev.Ref == "" {
			return rev, &FetchError{Source: o.src.String(), Err: fmt.Errorf("the repository has no version tag and no \"latest\": %w", ociartifact.ErrNotFound)}
		}
		rev.RefName = plumbing.NewTagReferenceName(rev.Ref)
	}
	return rev, o.in.checkPin(o.src.String(), string(rev.Kind), ref)
}

// newestTag is the highest semver tag among refs, else "latest" when it is
// there.
func newestTag(refs []*plumbing.Reference) string {
	var best *semver.Version
	bestTag, latest := "", false
	for _, r := range refs {
		tag := r.Name().Short()
		latest = latest || tag == "latest"
		v, err := semver.NewVersion(strings.ReplaceAll(tag, "_", "+"))
		if err != nil || v.Prerelease() != "" {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best, bestTag = v, tag
		}
	}
	if bestTag == "" && latest {
		return "latest"
	}
	return bestTag
}

func (o *ociFetcher) checkout(ctx context.Context, rev gitfetch.Revision, tree string) (*fetched, error) {
	t, err := o.repo(ctx)
	if err != nil {
		return nil, err
	}
	opts := o.in.git()
	p, err := ociartifact.Pull(ctx, t, rev.Ref, tree, ociartifact.Limits{MaxTreeBytes: opts.MaxTreeBytes, MaxTreeFiles: opts.MaxTreeFiles})
	if err != nil {
		return nil, &FetchError{Source: o.src.String(), Err: registry.RedactError(err)}
	}
	if err := checkArtifact(o.src.String(), p, tree); err != nil {
		return nil, err
	}
	if o.origin != nil {
		return o.mirroredTree(rev, p, tree)
	}
	f := &fetched{src: o.src, dir: tree, kind: lockfile.KindOCI, commit: p.Info.Commit, refKind: string(rev.Kind),
		tier: o.tier(o.in.trust()), ociDigest: p.Digest, origin: p.Info.Source}
	if rev.Kind == gitfetch.KindTag || rev.Kind == gitfetch.KindDefault {
		f.tag = rev.Ref
	}
	return f, nil
}

// checkArtifact refuses an artifact whose tree is not the one its
// annotations describe, or whose revision is not a commit.
func checkArtifact(source string, p *ociartifact.Pulled, tree string) error {
	if c := p.Info.Commit; c != "" && !isCommit(c) {
		return &FetchError{Source: source, Err: fmt.Errorf("artifact %s names the revision %q, which is not a full commit", p.Digest, c)}
	}
	h, err := treehash.Hash(tree, treehash.Options{})
	if err != nil {
		return &FetchError{Source: source, Err: err}
	}
	if p.Info.TreeHash != "" && h.Hash != p.Info.TreeHash {
		return &FetchError{Source: source, Err: fmt.Errorf("artifact %s holds a tree hashing to %s, and its annotation says %s", p.Digest, h.Hash, p.Info.TreeHash)}
	}
	return nil
}

func isCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

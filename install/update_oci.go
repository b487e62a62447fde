package install

import (
	"context"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/registry"
)

// checkOCI decides an OCI plugin's target, as check does a git one's: a
// digest pin stays; a tag pin stays unless its tag now names another
// manifest, which is refused as a moved tag; an install without a ref
// follows the newest version tag. Newer version tags are reported, and
// taken with MovePins.
func (u *Updater) checkOCI(ctx context.Context, pl *plan, o *ociFetcher) {
	p := &pl.entry
	t, err := o.repo(ctx)
	if err != nil {
		fail(pl, err)
		return
	}
	names, err := ociartifact.Tags(ctx, t)
	if err != nil {
		fail(pl, &FetchError{Source: o.src.String(), Err: registry.RedactError(err)})
		return
	}
	tags := make([]registry.Tag, len(names))
	refs := make([]*plumbing.Reference, len(names))
	for i, n := range names {
		tags[i] = registry.Tag{Name: n}
		refs[i] = plumbing.NewHashReference(plumbing.NewTagReferenceName(n), plumbing.ZeroHash)
	}
	lim := ociartifact.Limits{MaxTreeBytes: u.Installer.Git.MaxTreeBytes, MaxTreeFiles: u.Installer.Git.MaxTreeFiles}
	// What names a revision: the manifest's digest, or for a git source
	// fetched through its OCI mirror the commit the artifact names.
	installed := p.OCIDigest
	if o.origin != nil {
		installed = p.Commit
	}
	digestOf := func(ref string) (string, bool) {
		r, err := ociartifact.Resolve(ctx, t, ref, lim)
		if err != nil {
			fail(pl, &FetchError{Source: o.src.String(), Err: registry.RedactError(err)})
			return "", false
		}
		if o.origin != nil {
			return r.Info.Commit, true
		}
		return r.Digest, true
	}
	target := ""
	switch p.RefKind {
	case RefDigest, string(gitfetch.KindCommit), string(gitfetch.KindTag):
		if p.RefKind == string(gitfetch.KindTag) {
			tag := p.PinnedRef
			if o.origin != nil && !slices.Contains(names, tag) {
				tag = trimV(tag) // the mirror tags versions without a v
			}
			d, ok := digestOf(tag)
			if !ok {
				return
			}
			if installed != "" && d != installed {
				fail(pl, &TagMovedError{Plugin: p.Name, Tag: p.PinnedRef, From: installed, To: d})
				return
			}
		}
		pl.res.Status = StatusUpToDate
		pl.res.NewerTags = newerTags(tags, p.Version)
		if !u.MovePins || len(pl.res.NewerTags) == 0 {
			if len(pl.res.NewerTags) > 0 {
				pl.res.Detail = "pinned to " + p.PinnedRef + "; newer tags exist"
			}
			return
		}
		target, pl.pin, pl.res.NewerTags = pl.res.NewerTags[0], pl.res.NewerTags[0], nil
	default: // installed without a ref: follow the newest version
		target = newestTag(refs)
		if target == "" {
			fail(pl, &FetchError{Source: o.src.String(), Err: ociartifact.ErrNotFound})
			return
		}
		d, ok := digestOf(target)
		if !ok {
			return
		}
		if d == installed {
			pl.res.Status = StatusUpToDate
			return
		}
	}
	pl.rev = gitfetch.Revision{Ref: target, Kind: gitfetch.KindTag, RefName: plumbing.NewTagReferenceName(target)}
	if p.RefKind != RefDigest && p.RefKind != string(gitfetch.KindTag) {
		pl.rev.Kind = gitfetch.KindDefault
	}
	if err := u.Installer.checkPin(p.Name, string(pl.rev.Kind), pl.pinnedRef()); err != nil {
		fail(pl, err)
		return
	}
	pl.fetch = true
	pl.res.To = &Rev{Ref: pl.pinnedRef()}
}

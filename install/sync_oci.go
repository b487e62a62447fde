package install

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// ociSyncSource is where a synced OCI entry is fetched from: its url,
// which its source (when it has one) must be.
func ociSyncSource(w *lockfile.Plugin, fetch registry.Source) (registry.Source, error) {
	if w.Source != "" && registry.RedactText(w.Source) != fetch.Display {
		url := registry.RedactText(w.URL)
		return fetch, &SourceError{Source: url, Err: &SourceMismatchError{Name: w.Name, Source: registry.RedactText(w.Source), URL: url}}
	}
	fetch.Ref = w.PinnedRef
	return fetch, nil
}

// installExactOCI installs the artifact w records by its digest.
func (s *Syncer) installExactOCI(ctx context.Context, w lockfile.Plugin, src registry.Source, replace bool) (err error) {
	if !registry.IsDigest(w.OCIDigest) {
		return fmt.Errorf("%s %w: no oci_digest is recorded", w.Name, ErrNotReproducible)
	}
	in := *s.Installer
	in.Force = replace
	fe := &ociFetcher{in: &in, src: src}
	if err := in.checkSource(w.Name, fe.identity("")); err != nil {
		return err
	}
	if err := in.checkPin(w.Name, w.RefKind, w.PinnedRef); err != nil {
		return err
	}
	stage, cleanup, err := newStage(in.Paths, "sync")
	if err != nil {
		return err
	}
	defer cleanup()
	defer func() { err = hideStaging(err, stage) }()
	in.logf("Fetching %s at %s (%s)...\n", termsafe.Escape(src.Display), short(w.OCIDigest), fe.tier(in.trust()))
	f, err := fe.checkout(ctx, gitfetch.Revision{Ref: w.OCIDigest, Kind: RefDigest}, filepath.Join(stage, "tree"))
	if err != nil {
		return err
	}
	if w.Commit != "" && f.commit != w.Commit {
		return fmt.Errorf("%s %w: artifact %s names the commit %q, not the recorded %s", w.Name, ErrNotReproducible, w.OCIDigest, f.commit, w.Commit)
	}
	f.src.Ref, f.refKind, f.tag = w.PinnedRef, w.RefKind, w.Tag
	return s.finishExact(ctx, &in, w, f)
}

// fetchedRevision names what f is, for messages: its artifact, else its
// commit.
func fetchedRevision(f *fetched) string {
	if f.ociDigest != "" {
		return "artifact " + f.ociDigest
	}
	return "commit " + short(f.commit)
}

// installFrom installs w from s.From, an image layout of fledge
// artifacts: the artifact its oci_digest names, else the one tagged
// "<name>:<commit>" (as Mirror tags a layout). The tree must hash to the
// recorded source hash and name the recorded commit; the record reads as
// the file's (its source, kind and digest), since it is the same tree.
func (s *Syncer) installFrom(ctx context.Context, w lockfile.Plugin, src registry.Source, replace bool) (err error) {
	if w.SourceHash == "" {
		return fmt.Errorf("%s %w: no source_hash is recorded to check the bundle's tree against", w.Name, ErrNotReproducible)
	}
	in := *s.Installer
	in.Force = replace
	fe, err := in.newFetcher(src)
	if err != nil {
		return err
	}
	// The tree is the origin's (its hash is checked), so the origin is what
	// the policy judges.
	if err := in.checkSource(w.Name, fe.identity("")); err != nil {
		return err
	}
	if err := in.checkPin(w.Name, w.RefKind, w.PinnedRef); err != nil {
		return err
	}
	var refs []string
	if w.OCIDigest != "" {
		refs = append(refs, w.OCIDigest)
	}
	if w.Commit != "" {
		refs = append(refs, w.Name+":"+w.Commit)
	}
	ref := ""
	for _, r := range refs {
		if _, err := s.From.Resolve(ctx, r); err == nil {
			ref = r
			break
		}
	}
	if ref == "" {
		return fmt.Errorf("%s %w: the bundle holds neither %v", w.Name, ErrNotReproducible, refs)
	}
	stage, cleanup, err := newStage(in.Paths, "sync")
	if err != nil {
		return err
	}
	defer cleanup()
	defer func() { err = hideStaging(err, stage) }()
	in.logf("Installing %s from the bundle (%s)...\n", termsafe.Escape(w.Name), termsafe.Escape(ref))
	o := &ociFetcher{in: &in, src: src, target: s.From}
	f, err := o.checkout(ctx, gitfetch.Revision{Ref: ref, Kind: RefDigest}, filepath.Join(stage, "tree"))
	if err != nil {
		return err
	}
	if w.Commit != "" && f.commit != w.Commit {
		return fmt.Errorf("%s %w: the bundle's artifact names the commit %q, not the recorded %s", w.Name, ErrNotReproducible, f.commit, w.Commit)
	}
	f.tier = fe.tier(in.trust())
	f.kind, f.ociDigest, f.origin = lockfile.KindOf(w.Kind).Kind, w.OCIDigest, w.Origin
	f.src.Ref, f.refKind, f.tag = w.PinnedRef, w.RefKind, w.Tag
	return s.finishExact(ctx, &in, w, f)
}

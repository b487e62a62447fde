package install

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/treehash"
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
	id := recordedID(fe.identity(""), w)
	if err := in.checkSource(w.Name, id); err != nil {
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
	f.policyIDs = []policy.Source{id}
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

// installFrom installs w from target, a store of fledge artifacts (a
// bundle's image layout, or the origin's OCI mirror), by the first of refs
// it holds. The tree must hash to the recorded source hash and name the
// recorded commit; the record reads as the file's (its source, kind and
// digest), since it is the same tree. where names target in messages;
// mirror is recorded as the mirror fetched from, when target is one.
func (s *Syncer) installFrom(ctx context.Context, w lockfile.Plugin, src registry.Source, replace bool, target ociartifact.Source, refs []string, where, mirror string) (err error) {
	if w.SourceHash == "" {
		return fmt.Errorf("%s %w: no source_hash is recorded to check the tree from %s against", w.Name, ErrNotReproducible, where)
	}
	in := *s.Installer
	in.Force = replace
	// The tree is the origin's (its hash is checked), so the origin is what
	// the policy judges and what the record names.
	fe, err := in.newFetcher(src)
	if err != nil {
		return err
	}
	id := recordedID(fe.identity(""), w)
	if err := in.checkSource(w.Name, id); err != nil {
		return err
	}
	if err := in.checkPin(w.Name, w.RefKind, w.PinnedRef); err != nil {
		return err
	}
	ref := ""
	for _, r := range refs {
		if _, err := target.Resolve(ctx, r); err == nil {
			ref = r
			break
		}
	}
	if ref == "" {
		return fmt.Errorf("%s %w: %s holds none of %v", w.Name, ErrNotReproducible, where, refs)
	}
	stage, cleanup, err := newStage(in.Paths, "sync")
	if err != nil {
		return err
	}
	defer cleanup()
	defer func() { err = hideStaging(err, stage) }()
	in.logf("Fetching %s at %s from %s...\n", termsafe.Escape(w.Name), termsafe.Escape(short(ref)), termsafe.Escape(where))
	o := &ociFetcher{in: &in, src: src, target: target}
	f, err := o.checkout(ctx, gitfetch.Revision{Ref: ref, Kind: RefDigest}, filepath.Join(stage, "tree"))
	if err != nil {
		return err
	}
	f.policyIDs = []policy.Source{id}
	if w.Commit != "" && f.commit != w.Commit {
		return fmt.Errorf("%s %w: %s serves commit %q for it, and the file records %s", w.Name, ErrNotReproducible, where, f.commit, w.Commit)
	}
	if h, err := treehash.Hash(f.dir, treehash.Options{}); err != nil || h.Hash != w.SourceHash {
		got := "an unreadable tree"
		if err == nil {
			got = "a tree hashing to " + h.Hash
		}
		return fmt.Errorf("%s %w: %s serves %s (%s), not the recorded %s", w.Name, ErrNotReproducible, where, got, ref, w.SourceHash)
	}
	f.tier = fe.tier(in.trust())
	f.kind, f.ociDigest, f.origin, f.mirror = lockfile.KindOf(w.Kind).Kind, w.OCIDigest, w.Origin, w.Mirror
	if mirror != "" {
		f.mirror = mirror
	}
	f.src.Ref, f.refKind, f.tag = w.PinnedRef, w.RefKind, w.Tag
	return s.finishExact(ctx, &in, w, f)
}

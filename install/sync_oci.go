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

package install

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/treehash"
)

// A Destination is where Mirror pushes one plugin: a registry repository
// (PREFIX/<name>, tags as they are) or an image layout (one store, tags
// prefixed with "<name>:"). Where names it for people.
type Destination func(ctx context.Context, name string) (target ociartifact.Target, tagPrefix, where string, err error)

// MirrorResult is what Mirror did with one plugin.
type MirrorResult struct {
	Name string
	// Where is the repository or layout it was pushed to, Digest the
	// manifest and Tags its tags there.
	Where, Digest string
	Tags          []string
	// Refetched is set when the installed tree is not the fetched one (a
	// build or hook changed it) and the recorded revision was fetched
	// again from its source to be pushed.
	Refetched bool
	Err       error
}

// Mirror pushes each named installed plugin (all when names is empty) to
// dst as a fledge artifact: exactly the tree it was installed from (its
// recorded source hash), annotated with its origin, commit and tree hash,
// tagged with its version and its commit. A plugin whose installed tree
// was changed by its build is fetched again at its recorded revision, and
// must hash as recorded. Local plugins have no origin and are refused.
func (in *Installer) Mirror(ctx context.Context, names []string, dst Destination) ([]MirrorResult, error) {
	file, err := in.Store.Load()
	if err != nil {
		return nil, err
	}
	var plugins []lockfile.Plugin
	if len(names) == 0 {
		plugins = file.Plugins
	}
	for _, n := range names {
		p, err := file.Resolve(n)
		if err != nil {
			return nil, err
		}
		plugins = append(plugins, *p)
	}
	var out []MirrorResult
	for _, p := range plugins {
		r := MirrorResult{Name: p.Name}
		r.Err = in.mirrorOne(ctx, &p, dst, &r)
		out = append(out, r)
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
	}
	return out, nil
}

func (in *Installer) mirrorOne(ctx context.Context, p *lockfile.Plugin, dst Destination, r *MirrorResult) error {
	if p.IsLocal() {
		return fmt.Errorf("%s was installed from a local directory, which has no origin to mirror", p.Name)
	}
	if p.SourceHash == "" {
		return fmt.Errorf("%s records no source hash: reinstall it to mirror it exactly", p.Name)
	}
	tagVersion, err := ociartifact.Tag(p.Version)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	dir := in.Paths.PluginDir(p.Name)
	if h, err := treehash.Hash(dir, treehash.Options{}); err != nil || h.Hash != p.SourceHash {
		stage, cleanup, err := newStage(in.Paths, "mirror")
		if err != nil {
			return err
		}
		defer cleanup()
		if dir, err = in.refetch(ctx, p, filepath.Join(stage, "tree")); err != nil {
			return hideStaging(err, stage)
		}
		r.Refetched = true
	}
	target, prefix, where, err := dst(ctx, p.Name)
	if err != nil {
		return err
	}
	r.Where = where
	tags := []string{prefix + tagVersion}
	if isCommit(p.Commit) {
		tags = append(tags, prefix+p.Commit)
	}
	info := ociartifact.Info{Name: p.Name, Version: p.Version, Source: originOf(p), Commit: p.Commit}
	desc, err := ociartifact.Push(ctx, target, dir, info, tags, ociartifact.Limits{MaxTreeBytes: in.Git.MaxTreeBytes, MaxTreeFiles: in.Git.MaxTreeFiles})
	if err != nil {
		return fmt.Errorf("push %s to %s: %w", p.Name, where, registry.RedactError(err))
	}
	r.Digest, r.Tags = desc.Digest.String(), tags
	return nil
}

// originOf is where a record's tree came from first: its origin when it
// was fetched through an artifact, else the URL it was fetched from.
func originOf(p *lockfile.Plugin) string {
	if p.Origin != "" {
		return p.Origin
	}
	if p.URL != "" {
		return registry.RedactURL(p.URL)
	}
	return p.Source
}

// refetch fetches p's recorded revision into tree and checks that it
// hashes as recorded: the tree p was installed from.
func (in *Installer) refetch(ctx context.Context, p *lockfile.Plugin, tree string) (string, error) {
	src, err := entrySource(p, in.GitHubBase)
	if err != nil {
		return "", err
	}
	fe, err := in.newFetcher(src)
	if err != nil {
		return "", err
	}
	rev := gitfetch.Revision{Ref: p.Commit, Kind: gitfetch.KindCommit, Commit: p.Commit}
	switch {
	case src.Kind == registry.SourceOCI:
		rev = gitfetch.Revision{Ref: p.OCIDigest, Kind: RefDigest}
	case len(p.Commit) != 40:
		return "", fmt.Errorf("%s %w: its tree was changed by its build, and no full commit is recorded to fetch it again", p.Name, ErrNotReproducible)
	}
	in.logf("Fetching %s again: its installed tree is not the one it was installed from\n", p.Name)
	f, err := fe.checkout(ctx, rev, tree)
	if err != nil {
		return "", err
	}
	h, err := treehash.Hash(f.dir, treehash.Options{})
	if err != nil {
		return "", err
	}
	if h.Hash != p.SourceHash {
		return "", fmt.Errorf("%s %w: %s hashes to %s, not the recorded %s", p.Name, ErrNotReproducible, fetchedRevision(f), h.Hash, p.SourceHash)
	}
	return f.dir, nil
}

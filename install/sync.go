package install

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/ociartifact"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Sync statuses.
const (
	SyncInSync    = "in_sync"
	SyncInstalled = "installed"
	SyncReplaced  = "replaced"
	SyncRemoved   = "removed"
	SyncFailed    = "failed"
)

// SyncResult is what sync did for one plugin.
type SyncResult struct {
	Name   string
	Status string
	Commit string
	// URL is where the plugin is fetched from (or, in sync, was installed
	// from), without credentials; empty when the entry names no usable one.
	URL string
	Err error
}

// Syncer makes this machine's plugins match a plugins.toml from elsewhere:
// exactly the recorded commits, checked against the recorded content
// hashes. The file's grants are a proposal, approved under the install
// rules; nothing is removed unless Prune is set.
type Syncer struct {
	Installer *Installer
	Prune     bool
	// From, when set, is where every entry is fetched from instead of its
	// source: an OCI image layout written by Mirror (fledge plugins
	// bundle). Nothing is contacted; what it holds must hash as the file
	// records.
	From ociartifact.Source
}

// ErrNotReproducible is wrapped when an entry cannot be installed exactly.
var ErrNotReproducible = fmt.Errorf("cannot be reproduced exactly")

// Sync applies want.
func (s *Syncer) Sync(ctx context.Context, want *lockfile.File) ([]SyncResult, error) {
	have, err := s.Installer.Store.Load()
	if err != nil {
		return nil, err
	}
	entries := append([]lockfile.Plugin(nil), want.Plugins...)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	var results []SyncResult
	wanted := map[string]bool{}
	for _, w := range entries {
		wanted[w.Name] = true
		r := SyncResult{Name: w.Name, Commit: w.Commit}
		cur, installed := have.Get(w.Name)
		src, err := syncSource(&w, s.Installer.GitHubBase)
		if err == nil {
			r.URL = registry.RedactURL(src.URL)
		}
		switch {
		case err != nil:
			r.Status, r.Err = SyncFailed, err
		case installed && inSync(cur, s.proposed(&w, src)):
			r.Status = SyncInSync
		default:
			if err := s.installExact(ctx, w, src, installed); err != nil {
				r.Status, r.Err = SyncFailed, err
			} else if installed {
				r.Status = SyncReplaced
			} else {
				r.Status = SyncInstalled
			}
		}
		results = append(results, r)
	}
	if s.Prune {
		rm := &Remover{Paths: s.Installer.Paths, Store: s.Installer.Store, Log: s.Installer.Log, Env: s.Installer.Env, Unconfined: s.Installer.Unconfined,
			Settings: s.Installer.Settings, Journal: s.Installer.Journal, Note: "pruned by sync"}
		for _, p := range have.Plugins {
			if wanted[p.Name] {
				continue
			}
			r := SyncResult{Name: p.Name, Status: SyncRemoved, Commit: p.Commit}
			if _, err := rm.Remove(ctx, p.Name); err != nil {
				r.Status, r.Err = SyncFailed, err
			}
			results = append(results, r)
		}
	}
	return results, nil
}

// proposed is w as this machine's policy would let it be granted: an
// entry whose grants the policy narrows is in sync once it has what the
// policy leaves of them.
func (s *Syncer) proposed(w *lockfile.Plugin, src registry.Source) *lockfile.Plugin {
	in := s.Installer
	if in.policy().Empty() {
		return w
	}
	cp := *w
	cp.Capabilities, cp.Hooks, _ = in.narrowGrants(registry.TierOfSource(src, in.trust()), w.Capabilities, w.Hooks)
	return &cp
}

// inSync reports whether the installed plugin already is the wanted one,
// with the same grants and hooks.
func inSync(cur, w *lockfile.Plugin) bool {
	if cur.KindInfo().Live {
		return false
	}
	if w.KindInfo().Kind == lockfile.KindOCI { // an artifact is named by its digest
		if cur.OCIDigest != w.OCIDigest {
			return false
		}
	} else if cur.Commit == "" || cur.Commit != w.Commit {
		return false
	}
	if w.SourceHash != "" && cur.SourceHash != w.SourceHash {
		return false
	}
	if !cur.Capabilities.Equal(w.Capabilities) || len(cur.Hooks) != len(w.Hooks) {
		return false
	}
	for k, v := range w.Hooks {
		if cur.Hooks[k] != v {
			return false
		}
	}
	return true
}

// SourceMismatchError reports a synced entry whose source (what a user is
// shown) and url (what would be fetched) name different repositories.
type SourceMismatchError struct {
	Name, Source, URL string
}

func (e *SourceMismatchError) Error() string {
	return fmt.Sprintf("%s: its source %q and its url %q name different repositories; fledge fetches only what it shows: make both name the repository to install, or drop url to fetch the source",
		e.Name, e.Source, e.URL)
}

// syncSource is where a synced entry is fetched from. The file comes from
// elsewhere: its source is what people read and its url what fetching
// would use, so both must name one repository (owner/repo shorthand may
// mean github.com or this machine's FLEDGE_GITHUB_URL). The returned
// source shows the URL fetched; a file without url (the Rust fledge's)
// fetches its source.
func syncSource(w *lockfile.Plugin, githubBase string) (registry.Source, error) {
	if w.IsLocal() {
		return registry.Source{}, fmt.Errorf("%s %w: it was installed from a local directory (%s)", w.Name, ErrNotReproducible, registry.RedactText(w.Source))
	}
	if w.URL == "" {
		src, err := entrySource(w, githubBase)
		if err != nil {
			return src, &SourceError{Source: registry.RedactText(w.Source), Err: err}
		}
		if src.Kind != registry.SourceGit {
			return src, fmt.Errorf("%s %w: its source %q is not a git repository", w.Name, ErrNotReproducible, registry.RedactText(w.Source))
		}
		src.Display = registry.RedactURL(src.URL)
		return src, nil
	}
	url := registry.RedactText(w.URL)
	fetch, err := registry.ParseSource(w.URL, "")
	if err != nil {
		return fetch, &SourceError{Source: url, Err: fmt.Errorf("url of %s: %w", w.Name, err)}
	}
	if fetch.Kind == registry.SourceOCI {
		return ociSyncSource(w, fetch)
	}
	if fetch.Kind != registry.SourceGit {
		return fetch, &SourceError{Source: url, Err: fmt.Errorf("url %q of %s is not a git or oci URL", url, w.Name)}
	}
	if w.Source != "" {
		same := false
		if src, err := registry.ParseSource(w.Source, githubBase); err == nil {
			same = registry.SameRepository(src, fetch)
			if !same && src.Shorthand {
				gh, _ := registry.ParseSource(w.Source, "")
				same = registry.SameRepository(gh, fetch)
			}
		}
		if !same {
			return fetch, &SourceError{Source: url, Err: &SourceMismatchError{Name: w.Name, Source: registry.RedactText(w.Source), URL: url}}
		}
	}
	fetch.Ref = w.PinnedRef
	return fetch, nil
}

func (s *Syncer) installExact(ctx context.Context, w lockfile.Plugin, src registry.Source, replace bool) (err error) {
	if msg := manifest.CheckName(w.Name); msg != "" {
		return fmt.Errorf("entry name %s", msg)
	}
	if s.From != nil {
		var refs []string
		if w.OCIDigest != "" {
			refs = append(refs, w.OCIDigest)
		}
		if w.Commit != "" {
			refs = append(refs, w.Name+":"+w.Commit)
		}
		// Any artifact will do that hashes as recorded: an OCI plugin
		// without a commit, bundled under another digest, by its version.
		if t, err := ociartifact.Tag(w.Version); err == nil {
			refs = append(refs, w.Name+":"+t)
		}
		return s.installFrom(ctx, w, src, replace, s.From, refs, "the bundle", "")
	}
	if src.Kind == registry.SourceOCI {
		return s.installExactOCI(ctx, w, src, replace)
	}
	if len(w.Commit) != 40 {
		return fmt.Errorf("%s %w: no full commit is recorded", w.Name, ErrNotReproducible)
	}
	in := *s.Installer
	in.Force = replace
	// The file's registry names are not trusted: its entries are judged by
	// where they are fetched from.
	fe, err := in.newFetcher(src)
	if err != nil {
		return err
	}
	if o, ok := fe.(*ociFetcher); ok && o.origin != nil {
		// Through an OCI mirror: the artifact mirror tagged with the
		// commit, which must hash as recorded.
		t, err := o.repo(ctx)
		if err != nil {
			return err
		}
		return s.installFrom(ctx, w, src, replace, t, []string{w.Commit}, "its mirror "+o.src.URL, o.src.URL)
	}
	id := recordedID(fe.identity(""), w)
	if err := in.checkSource(w.Name, id); err != nil {
		return err
	}
	if err := in.checkPin(w.Name, w.RefKind, w.PinnedRef); err != nil {
		return err
	}
	refs, err := fe.listRefs(ctx)
	if err != nil {
		return err
	}
	// Fetch by the tag or branch that names the commit when there is one
	// (a shallow fetch); otherwise by the commit itself.
	rev := gitfetch.Revision{Ref: w.Commit, Kind: gitfetch.KindCommit, Commit: w.Commit}
	for _, ref := range []string{w.Tag, w.PinnedRef} {
		if ref == "" {
			continue
		}
		if r, err := gitfetch.Resolve(refs, ref); err == nil && r.Commit == w.Commit && r.RefName != "" {
			rev = r
			break
		}
	}
	stage, cleanup, err := newStage(in.Paths, "sync")
	if err != nil {
		return err
	}
	defer cleanup()
	defer func() { err = hideStaging(err, stage) }()
	in.logf("Fetching %s at %s (%s)...\n", termsafe.Escape(src.String()), short(w.Commit), fe.tier(in.trust()))
	f, err := fe.checkout(ctx, rev, filepath.Join(stage, "tree"))
	if err != nil {
		return err
	}
	f.policyIDs = []policy.Source{id}
	f.src.Ref, f.refKind, f.tag = w.PinnedRef, w.RefKind, w.Tag
	return s.finishExact(ctx, &in, w, f)
}

// recordedID is id as w records it: its commit and its source hash, both
// known before anything is fetched. A rule pinned to a tree judges the
// recorded hash first, then (prepare) the hash of what was fetched.
func recordedID(id policy.Source, w lockfile.Plugin) policy.Source {
	id.Commit, id.Tree, id.TreePending = w.Commit, w.SourceHash, w.SourceHash == ""
	return id
}

// finishExact installs the fetched f as w records it: the same plugin
// and source hash, with the file's grants as a proposal.
func (s *Syncer) finishExact(ctx context.Context, in *Installer, w lockfile.Plugin, f *fetched) error {
	c, err := in.prepare(f)
	if err != nil {
		return err
	}
	if c.m.Plugin.Name != w.Name {
		return fmt.Errorf("%s %w: %s names the plugin %q", w.Name, ErrNotReproducible, fetchedRevision(f), c.m.Plugin.Name)
	}
	if w.SourceHash != "" && c.srcHash != w.SourceHash {
		return fmt.Errorf("%s %w: %s hashes to %s, not the recorded %s", w.Name, ErrNotReproducible, fetchedRevision(f), c.srcHash, w.SourceHash)
	}
	if err := in.preflight(c.m); err != nil {
		return err
	}
	if err := in.checkTagAge(w.Name, f); err != nil {
		return err
	}
	// The synced file's record of who signed it holds here too, and so
	// does what is installed.
	against := []recorded{{p: w.Provenance, against: "the synced plugins.toml's " + revName(&w)}}
	if cur, err := in.installed(w.Name); err == nil && cur != nil {
		against = append(against, recorded{p: cur.Provenance, against: "the installed " + short(cur.Commit)})
	}
	override, err := in.checkProvenance(c, against...)
	if err != nil {
		return err
	}
	// The file's grants are a proposal: what it grants that the manifest
	// requests, and the hooks it approved with exactly these commands.
	proposal := c.req
	proposal.Capabilities = c.m.Capabilities.Intersect(w.Capabilities)
	proposal.Hooks = nil
	for _, h := range c.req.Hooks {
		if w.Hooks[h.Name] == h.Command {
			proposal.Hooks = append(proposal.Hooks, h)
		}
	}
	for _, h := range c.req.Hooks {
		if (h.Name == manifest.HookBuild || h.Name == manifest.HookPostInstall) && w.Hooks[h.Name] != h.Command {
			return &ApprovalError{Plugin: w.Name, Tier: c.res.Tier, Missing: []string{GrantHooks}, Cause: HooksRequired,
				Reason: fmt.Sprintf("its %s (%s) must run, and the synced file does not approve it", h.Name, termsafe.Escape(h.Command))}
		}
	}
	dec, denied, err := in.decide(proposal)
	if err != nil {
		return err
	}
	hooks := map[string]string{}
	if dec.Hooks {
		for _, h := range proposal.Hooks {
			hooks[h.Name] = h.Command
		}
	}
	// Shown was the URL fetched; recorded is the file's source, which
	// names the same repository, so the entry reads as it did there.
	if w.Source != "" {
		f.src.Display = registry.RedactText(w.Source)
	}
	j := journal{action: grantlog.ActionSync, consent: in.Consent.consentOf(dec, grantlog.ConsentSync), policy: denied, override: override}
	_, err = in.finish(ctx, c, dec.Capabilities, hooks, j)
	return err
}

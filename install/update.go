package install

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/internal/semver"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
)

// Update statuses.
const (
	StatusUpdated     = "updated"
	StatusWouldUpdate = "would_update"
	StatusUpToDate    = "up_to_date"
	StatusSkipped     = "skipped"
	StatusFailed      = "failed"
)

// Rev is one side of an update.
type Rev struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Ref     string `json:"ref"`
}

// HookChange is a hook that an update adds or changes (To set) or drops
// (To empty).
type HookChange struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// UpdateResult is what happened to one plugin.
type UpdateResult struct {
	Name   string
	Status string
	Detail string
	From   Rev
	To     *Rev
	// AddedCapabilities are requested by the new version and not before.
	AddedCapabilities []manifest.Capability
	HookChanges       []HookChange
	// Escalation is set when the new version asks for more than was
	// approved (capabilities, hooks or a build command).
	Escalation bool
	// NewerTags lists semver tags above an exact tag pin.
	NewerTags []string
	// ForcePushed is set when the branch followed was force-pushed: its
	// new head does not descend from the installed commit.
	ForcePushed bool
	// Provenance is who signed the new revision, once it was fetched
	// (also when the update was then refused).
	Provenance *lockfile.Provenance
	Err        error
}

// ErrTagMoved is wrapped when a pinned tag now names another commit.
var ErrTagMoved = errors.New("tag moved")

// TagMovedError reports a plugin whose pinned tag now names another
// commit than the one installed, or (Older set) whose installed tag is
// gone while its constraint now matches only an older one. Update never
// follows either; a reinstall accepts it.
type TagMovedError struct {
	Plugin, Tag string
	// From is the installed commit, To the tag's commit now.
	From, To string
	// Older is the highest tag the constraint still matches, older than
	// Tag, when Tag is gone.
	Older string
}

func (e *TagMovedError) Error() string {
	if e.Older != "" {
		return fmt.Sprintf("tag moved: %s, which it was installed from, is gone and the highest match is the older %s; update never moves back",
			e.Tag, e.Older)
	}
	return fmt.Sprintf("tag moved: %s was installed at %s, and now points at %s", e.Tag, short(e.From), short(e.To))
}

func (e *TagMovedError) Unwrap() error { return ErrTagMoved }

// ErrForcePushed is wrapped when a followed branch's new head does not
// descend from the installed commit and Force was not set.
var ErrForcePushed = errors.New("branch force-pushed")

// ForcePushedError reports a branch whose history was rewritten or moved
// back since the plugin was installed from it.
type ForcePushedError struct {
	Plugin, Branch string
	// From and To are the installed commit and the branch's new head, with
	// the versions their manifests declare.
	From, To Rev
}

func (e *ForcePushedError) Error() string {
	change := ""
	if e.From.Version != "" && e.To.Version != "" && e.From.Version != e.To.Version {
		change = fmt.Sprintf(" (version %s → %s", e.From.Version, e.To.Version)
		if older(e.To.Version, e.From.Version) {
			change += ", lower"
		}
		change += ")"
	}
	return fmt.Sprintf("%s: branch %s was force-pushed: its head %s%s does not descend from the installed %s; update follows a rewritten or rewound branch only when told to",
		e.Plugin, e.Branch, short(e.To.Commit), change, short(e.From.Commit))
}

func (e *ForcePushedError) Unwrap() error { return ErrForcePushed }

// Updater brings installed git plugins to their target revisions. Only
// escalations (new capabilities, new or changed hooks or build command) are
// put to Consent; what was approved before carries over, and nothing an
// edited manifest asks for is granted silently.
type Updater struct {
	Installer *Installer
	DryRun    bool
	// MovePins moves exact tag pins to the newest release tag and records
	// it as the new pin, as the Rust fledge's update --defaults upgrades
	// its pinned defaults. Escalations still need approval.
	MovePins bool
	// Force follows a branch that was force-pushed (see ForcePushedError).
	Force bool
	// Concurrency bounds how many remotes are checked at once (64 when
	// zero: checks wait on the network, not the CPU).
	Concurrency int
}

// plan is the checked state of one plugin.
type plan struct {
	entry lockfile.Plugin
	src   registry.Source
	rev   gitfetch.Revision
	res   UpdateResult
	fetch bool   // a new revision to fetch
	pin   string // the pin to record when it moves (MovePins), else ""
	// branch is set when the target is a branch head, which must descend
	// from the installed commit.
	branch bool
	// stage is the staging directory of the fetch, kept out of errors.
	stage string
}

// pinnedRef is the ref the plugin will be recorded as pinned to.
func (pl *plan) pinnedRef() string {
	if pl.pin != "" {
		return pl.pin
	}
	return pl.entry.PinnedRef
}

// Update updates the named plugins (all when names is empty).
func (u *Updater) Update(ctx context.Context, names []string) ([]UpdateResult, error) {
	file, err := u.Installer.Store.Load()
	if err != nil {
		return nil, err
	}
	var plans []*plan
	var results []UpdateResult
	if len(names) == 0 {
		for _, p := range file.Plugins {
			if p.IsDisabled() {
				results = append(results, UpdateResult{Name: p.Name, Status: StatusSkipped, Detail: "disabled by " + p.Disabled() + ": not updated while disabled"})
				continue
			}
			plans = append(plans, &plan{entry: p})
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		p, err := file.Resolve(n)
		if err != nil {
			results = append(results, UpdateResult{Name: n, Status: StatusFailed, Detail: err.Error(), Err: err})
			continue
		}
		if err := p.DisabledErr("it is not updated while disabled"); err != nil {
			results = append(results, UpdateResult{Name: p.Name, Status: StatusFailed, Detail: err.Error(), Err: err})
			continue
		}
		if !seen[p.Name] { // "a" and "fledge-plugin-a" are one plugin
			seen[p.Name] = true
			plans = append(plans, &plan{entry: *p})
		}
	}

	g, gctx := errgroup.WithContext(ctx)
	limit := u.Concurrency
	if limit <= 0 {
		limit = 64
	}
	g.SetLimit(limit)
	for _, pl := range plans {
		g.Go(func() error {
			u.check(gctx, pl)
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	for _, pl := range plans {
		if pl.fetch {
			u.apply(ctx, pl)
		}
		results = append(results, pl.res)
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].Name < results[j].Name })
	return results, nil
}

func fail(pl *plan, err error) {
	err = hideStaging(err, pl.stage)
	pl.res.Status, pl.res.Detail, pl.res.Err = StatusFailed, err.Error(), err
}

// check decides each plugin's target without fetching its files.
func (u *Updater) check(ctx context.Context, pl *plan) {
	p := &pl.entry
	pl.res = UpdateResult{Name: p.Name, From: Rev{Version: p.Version, Commit: p.Commit, Ref: p.PinnedRef}}
	switch k := p.KindInfo(); {
	case k.Live:
		pl.res.Status, pl.res.Detail = StatusSkipped, "live-linked local plugin: its changes show through, and it never gains a capability that was not granted"
		return
	case k.Local:
		pl.res.Status, pl.res.Detail = StatusSkipped, "copied from a local directory, which update does not read"
		return
	}
	src, err := entrySource(p, u.Installer.GitHubBase)
	if err != nil {
		fail(pl, err)
		return
	}
	pl.src = src
	fe, err := u.Installer.newFetcher(src)
	if err != nil {
		fail(pl, err)
		return
	}
	if !fe.remote() { // a directory on this machine has no newer revision
		pl.res.Status, pl.res.Detail = StatusSkipped, "local plugin"
		return
	}
	// A source the policy now denies is not contacted, let alone updated:
	// neither the record as the runner judges it nor the URL about to be
	// fetched (for an owner/repo record, under FLEDGE_GITHUB_URL).
	for _, s := range []policy.Source{pending(EntrySource(p)), pending(fe.identity(p.RegistryName))} {
		if err := u.Installer.checkSource(p.Name, s); err != nil {
			fail(pl, err)
			return
		}
	}
	if o, ok := fe.(*ociFetcher); ok { // tags name digests, not commits
		u.checkOCI(ctx, pl, o)
		return
	}
	refs, err := fe.listRefs(ctx)
	if err != nil {
		fail(pl, err)
		return
	}
	tags := registry.TagsFromRefs(refs)
	kind := p.RefKind
	if kind == "" && p.PinnedRef != "" { // a Rust record: find out what the pin is
		if registry.IsConstraint(p.PinnedRef) {
			kind = RefConstraint
		} else if rev, err := gitfetch.Resolve(refs, p.PinnedRef); err == nil {
			kind = string(rev.Kind)
		}
	}
	switch kind {
	case RefConstraint:
		tag, commit, err := registry.ResolveConstraint(tags, p.PinnedRef, false)
		if err != nil {
			fail(pl, &FetchError{Source: src.String(), Err: err})
			return
		}
		if p.Tag != "" && tag == p.Tag && commit != p.Commit {
			fail(pl, movedErr(p, tag, commit))
			return
		}
		if older(tag, p.Tag) {
			fail(pl, &TagMovedError{Plugin: p.Name, Tag: p.Tag, From: p.Commit, To: commit, Older: tag})
			return
		}
		if commit == p.Commit {
			pl.res.Status = StatusUpToDate
			return
		}
		pl.rev, err = gitfetch.Resolve(refs, tag)
		if err != nil {
			fail(pl, &FetchError{Source: src.String(), Err: err})
			return
		}
		pl.rev.Ref, pl.rev.Kind = p.PinnedRef, RefConstraint
	case string(gitfetch.KindTag), string(gitfetch.KindCommit):
		current := p.PinnedRef
		if kind == string(gitfetch.KindTag) {
			for _, t := range tags {
				if t.Name == p.PinnedRef && p.Commit != "" && t.Commit != p.Commit {
					fail(pl, movedErr(p, t.Name, t.Commit))
					return
				}
			}
		} else {
			current = tagAt(tags, p.Commit)
		}
		pl.res.Status = StatusUpToDate
		pl.res.NewerTags = newerTags(tags, current)
		if u.MovePins && len(pl.res.NewerTags) > 0 {
			if pl.rev, err = gitfetch.Resolve(refs, pl.res.NewerTags[0]); err != nil {
				fail(pl, &FetchError{Source: src.String(), Err: err})
				return
			}
			pl.pin, pl.res.NewerTags = pl.res.NewerTags[0], nil
			break
		}
		if len(pl.res.NewerTags) > 0 {
			pl.res.Detail = "pinned to " + p.PinnedRef + "; newer tags exist"
		}
		return
	default: // branch or default branch: follow its head
		rev, err := gitfetch.Resolve(refs, p.PinnedRef)
		if err != nil {
			fail(pl, &FetchError{Source: src.String(), Err: err})
			return
		}
		if rev.Commit == p.Commit {
			pl.res.Status = StatusUpToDate
			return
		}
		pl.rev, pl.branch = rev, true
	}
	if err := u.Installer.checkPin(p.Name, string(pl.rev.Kind), pl.pinnedRef()); err != nil {
		fail(pl, err)
		return
	}
	// A rule pinned to a commit judges the one about to be fetched.
	for _, s := range []policy.Source{EntrySource(p), fe.identity(p.RegistryName)} {
		if err := u.Installer.checkResolved(p.Name, s, listedCommit(pl.rev)); err != nil {
			fail(pl, err)
			return
		}
	}
	pl.fetch = true
	pl.res.To = &Rev{Commit: pl.rev.Commit, Ref: pl.pinnedRef()}
}

// older reports whether tag a is a lower version than tag b.
func older(a, b string) bool {
	va, errA := semver.NewVersion(a)
	vb, errB := semver.NewVersion(b)
	return errA == nil && errB == nil && va.LessThan(vb)
}

// tagAt returns the highest semver tag naming commit, or "".
func tagAt(tags []registry.Tag, commit string) string {
	var best *semver.Version
	name := ""
	for _, t := range tags {
		if t.Commit != commit {
			continue
		}
		if v, err := semver.NewVersion(t.Name); err == nil && (best == nil || v.GreaterThan(best)) {
			best, name = v, t.Name
		}
	}
	return name
}

func movedErr(p *lockfile.Plugin, tag, commit string) error {
	return &TagMovedError{Plugin: p.Name, Tag: tag, From: p.Commit, To: commit}
}

func short(c string) string { return c[:min(12, len(c))] }

// revName names an installed revision in messages: "v1.2.0 (0123abcd4567)".
func revName(p *lockfile.Plugin) string {
	if p.Tag != "" {
		return p.Tag + " (" + short(p.Commit) + ")"
	}
	return short(p.Commit)
}

// entrySource rebuilds a plugin's source from its record. githubBase
// expands the owner/repo sources of records that carry no URL (written by
// the Rust fledge); empty means https://github.com.
func entrySource(p *lockfile.Plugin, githubBase string) (registry.Source, error) {
	if p.URL != "" {
		s, err := registry.ParseSource(p.URL, "")
		if err != nil {
			return s, err
		}
		s.Display, s.Ref = registry.RedactText(p.Source), p.PinnedRef
		return s, nil
	}
	// Records written by the Rust fledge: owner/repo meant GitHub.
	s, err := registry.ParseSource(p.Source, githubBase)
	if err != nil {
		return s, fmt.Errorf("source %q of %s: %w", registry.RedactText(p.Source), p.Name, err)
	}
	s.Ref = p.PinnedRef
	return s, nil
}

// newerTags lists semver tags above current, highest first.
func newerTags(tags []registry.Tag, current string) []string {
	cur, err := semver.NewVersion(current)
	if err != nil {
		return nil
	}
	var out []*semver.Version
	names := map[*semver.Version]string{}
	for _, t := range tags {
		v, err := semver.StrictNewVersion(trimV(t.Name))
		if err != nil || v.Prerelease() != "" || !v.GreaterThan(cur) {
			continue
		}
		out = append(out, v)
		names[v] = t.Name
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GreaterThan(out[j]) })
	s := make([]string, len(out))
	for i, v := range out {
		s[i] = names[v]
	}
	return s
}

func trimV(s string) string {
	if len(s) > 1 && (s[0] == 'v' || s[0] == 'V') {
		return s[1:]
	}
	return s
}

// apply fetches the target, works out what it asks for beyond what was
// approved, gets consent for that alone, and swaps it in. Declined, refused
// or failed, the installed version stays exactly as it was.
func (u *Updater) apply(ctx context.Context, pl *plan) {
	in := *u.Installer
	in.Force = true
	p := &pl.entry
	stage, cleanup, err := newStage(in.Paths, "update")
	if err != nil {
		fail(pl, err)
		return
	}
	defer cleanup()
	pl.stage = stage
	tree := filepath.Join(stage, "tree")
	fe, err := in.newFetcher(pl.src)
	if err != nil {
		fail(pl, err)
		return
	}
	var f *fetched
	descends := true
	if h, ok := fe.(historyFetcher); ok && pl.branch && p.Commit != "" {
		f, descends, err = h.checkoutFrom(ctx, pl.rev, tree, p.Commit)
	} else {
		f, err = fe.checkout(ctx, pl.rev, tree)
	}
	if err != nil {
		fail(pl, err)
		return
	}
	if err := in.checkResolved(p.Name, EntrySource(p), f.commit); err != nil {
		fail(pl, err)
		return
	}
	f.policyIDs = []policy.Source{EntrySource(p), fe.identity(p.RegistryName)}
	c, err := in.prepare(f)
	if err != nil {
		fail(pl, err)
		return
	}
	pl.res.To = &Rev{Version: c.m.Plugin.Version, Commit: f.commit, Ref: pl.pinnedRef()}
	if c.m.Plugin.Name != p.Name {
		fail(pl, fmt.Errorf("the new version is named %q, not %q: install it as a new plugin", c.m.Plugin.Name, p.Name))
		return
	}
	// A tag younger than the policy's cooldown waits: the next update
	// takes it once it is old enough.
	if err := in.checkTagAge(p.Name, f); err != nil {
		var de *policy.DeniedError
		if errors.As(err, &de) {
			pl.res.Status, pl.res.Detail = StatusSkipped, "held by the admin policy: "+de.Denials[0].Text()
			return
		}
		fail(pl, err)
		return
	}
	if !descends {
		pl.res.ForcePushed = true
		if !u.Force {
			fail(pl, &ForcePushedError{Plugin: p.Name, Branch: pl.rev.RefName.Short(), From: pl.res.From, To: *pl.res.To})
			return
		}
		pl.res.Detail = "branch " + pl.rev.RefName.Short() + " was force-pushed; followed, as the update was forced"
	}
	pl.res.Provenance = f.prov
	override, err := in.checkProvenance(c, recorded{p: p.Provenance, against: "the installed " + revName(p)})
	if err != nil {
		fail(pl, err)
		return
	}

	// What was approved before, and still requested, carries over.
	baseline := p.Requested
	if p.ManifestHash == "" { // Rust record: what was granted is all we know
		baseline = p.Capabilities
	}
	granted := c.m.Capabilities.Intersect(p.Capabilities)
	hooks := map[string]string{}
	ask := Request{Plugin: c.req.Plugin, Version: c.req.Version, Description: c.req.Description,
		Source: c.req.Source, Tier: c.req.Tier, Runtime: c.req.Runtime, Provenance: c.req.Provenance, ProvenanceNotes: c.req.ProvenanceNotes,
		Unconfined: in.forPlugin(p).Unconfined}
	added := map[manifest.Capability]bool{}
	for _, k := range c.m.Capabilities.Missing(baseline) {
		added[k] = true
		pl.res.AddedCapabilities = append(pl.res.AddedCapabilities, k)
	}
	ask.Capabilities = c.m.Capabilities.Only(added)
	for _, h := range c.req.Hooks {
		if p.Hooks[h.Name] == h.Command {
			hooks[h.Name] = h.Command
			ask.AlsoRuns = append(ask.AlsoRuns, h)
			continue
		}
		ask.Hooks = append(ask.Hooks, h)
		pl.res.HookChanges = append(pl.res.HookChanges, HookChange{Name: h.Name, From: p.Hooks[h.Name], To: h.Command})
	}
	for name, cmd := range p.Hooks {
		if _, still := c.m.Hooks.Map()[name]; !still && !(name == manifest.HookBuild && c.buildCmd != "") {
			pl.res.HookChanges = append(pl.res.HookChanges, HookChange{Name: name, From: cmd})
		}
	}
	sort.Slice(pl.res.HookChanges, func(i, j int) bool { return pl.res.HookChanges[i].Name < pl.res.HookChanges[j].Name })
	pl.res.Escalation = !ask.Empty()

	if u.DryRun {
		pl.res.Status = StatusWouldUpdate
		if pl.res.Escalation {
			pl.res.Detail = strings.TrimPrefix(pl.res.Detail+"; needs approval for: "+strings.Join(ask.Items(), ", "), "; ")
		}
		return
	}
	// What carries over passes the policy again: a rule added since
	// install takes the grant away now.
	consent := map[string]string{}
	for _, it := range (Grants{Capabilities: granted, Hooks: hooks}).Items() {
		consent[it] = grantlog.ConsentUpdate
	}
	granted, hooks, denied := in.narrowGrants(c.req.Tier, granted, hooks)
	if pl.res.Escalation {
		dec, refused, err := in.decide(ask)
		if err != nil {
			fail(pl, err)
			return
		}
		denied = append(denied, refused...)
		granted = granted.Union(dec.Capabilities)
		if dec.Hooks {
			for _, h := range ask.Hooks {
				hooks[h.Name] = h.Command
			}
		}
		maps.Copy(consent, in.Consent.consentOf(dec, grantlog.ConsentYes))
	}
	f.src.Ref = pl.pinnedRef()
	f.registry = p.RegistryName
	j := journal{action: grantlog.ActionUpdate, consent: consent, policy: denied, override: override}
	if _, err := in.finish(ctx, c, granted, hooks, j); err != nil {
		fail(pl, err)
		return
	}
	pl.res.Status = StatusUpdated
}

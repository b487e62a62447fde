package install

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/trust"
)

// How consent was given for a grant, as GrantResult.Consent records it.
const (
	// ConsentNamed: the item was named (fledge plugins grant x exec).
	ConsentNamed = "named"
	// ConsentYes: a blanket yes approved it (fledge plugins grant x --yes).
	ConsentYes = "yes"
	// ConsentTerminal: the user chose it on a terminal.
	ConsentTerminal = "terminal"
)

// GrantChange asks to change what an installed plugin is granted without
// reinstalling it. Items are capability names and "hooks".
type GrantChange struct {
	// Plugin is the plugin's name or its short form.
	Plugin string
	// Grant names items to grant. Naming an item is explicit consent to
	// it, as install's explicit grant is: for an unverified source that
	// is the only way exec, network and hooks are granted.
	Grant []string
	// Yes also grants everything else the plugin requests that a blanket
	// yes may approve (see Request.NeedsExplicitGrant); what it may not
	// approve fails the change with an *ApprovalError.
	Yes bool
	// Revoke names items to withdraw. Revoking needs no consent.
	Revoke []string
	// Interactive marks Grant as chosen on a terminal rather than named.
	Interactive bool
}

// GrantResult is what ChangeGrants did.
type GrantResult struct {
	// Plugin is the installed name, Version its installed version.
	Plugin, Version string
	Tier            trust.Tier
	// Request is what the installed plugin requests (capabilities and
	// hooks, with the recorded build command).
	Request Request
	// Before and After are the recorded grants around the change.
	Before, After Grants
	// Granted and Revoked list the items whose state the change flipped;
	// Unchanged lists those asked for that already were so.
	Granted, Revoked, Unchanged []string
	// Consent says, for each item granted, how consent was given
	// (ConsentNamed, ConsentYes or ConsentTerminal).
	Consent map[string]string
	// PolicyDenied lists what --yes would have granted and the admin
	// policy forbids, and why.
	PolicyDenied []policy.Denial
}

// Changed reports whether anything was written.
func (r *GrantResult) Changed() bool { return len(r.Granted)+len(r.Revoked) > 0 }

// Grants is what plugins.toml records as granted to one plugin.
type Grants struct {
	Capabilities manifest.Capabilities
	// Hooks are the approved hooks, name → exact command.
	Hooks map[string]string
}

// Items lists the grants as grant names: capabilities (each environment
// variable as its env: item), then "hooks" when any hook is approved.
func (g Grants) Items() []string {
	var out []string
	for _, it := range (Decision{Capabilities: g.Capabilities, Hooks: len(g.Hooks) > 0}).items() {
		if it != string(manifest.CapEnvironment) {
			out = append(out, it)
			continue
		}
		for _, e := range g.Capabilities.Entries(manifest.CapEnvironment) {
			out = append(out, manifest.EnvItem(e))
		}
	}
	return out
}

// Has reports whether item (a capability name, an env: item or "hooks")
// is granted.
func (g Grants) Has(item string) bool {
	if item == GrantHooks {
		return len(g.Hooks) > 0
	}
	if name, ok := manifest.ParseEnvItem(item); ok {
		return manifest.CoversEnv(g.Capabilities.Environment, name)
	}
	return g.Capabilities.Has(manifest.Capability(item))
}

// NotRequestedError reports a grant of something the installed plugin
// does not request: fledge never grants beyond the manifest.
type NotRequestedError struct {
	Plugin string
	Item   string
	// Requested lists what the plugin does request, as grant names.
	Requested []string
}

func (e *NotRequestedError) Error() string {
	what := "nothing"
	if len(e.Requested) > 0 {
		what = strings.Join(e.Requested, ", ")
	}
	if e.Item == GrantHooks {
		return fmt.Sprintf("%s declares no hooks, so there are none to approve (it requests: %s)", e.Plugin, what)
	}
	return fmt.Sprintf("%s does not request %s, so it cannot be granted (it requests: %s)", e.Plugin, e.Item, what)
}

// InstalledManifestError reports an installed plugin whose plugin.toml
// cannot be used to decide grants: it is gone or unreadable, or it is not
// the one that was approved.
type InstalledManifestError struct {
	Plugin string
	// Changed is set when the file differs from the one approved.
	Changed bool
	Err     error
}

func (e *InstalledManifestError) Error() string {
	switch {
	case e.Changed:
		return fmt.Sprintf("plugin %s's installed plugin.toml is not the one that was approved, so what it requests cannot be trusted", e.Plugin)
	case errors.Is(e.Err, os.ErrNotExist):
		return fmt.Sprintf("plugin %s's installed files are missing (no plugin.toml)", e.Plugin)
	}
	return fmt.Sprintf("plugin %s's installed plugin.toml cannot be read: %v", e.Plugin, e.Err)
}

func (e *InstalledManifestError) Unwrap() error { return e.Err }

// InstalledRequest is what an installed plugin requests, read from its
// installed plugin.toml: the capabilities and the hooks, with the build
// command recorded at install (a detected one included). A copied or
// cloned plugin's plugin.toml must be the one approved; a live link's
// changes by design, and is read as it is now.
func InstalledRequest(paths home.Paths, p *lockfile.Plugin, tier trust.Tier) (Request, *manifest.Manifest, error) {
	data, err := manifest.ReadFile(filepath.Join(paths.PluginDir(p.Name), manifest.FileName))
	if err != nil {
		return Request{}, nil, &InstalledManifestError{Plugin: p.Name, Err: err}
	}
	if !p.ApprovedManifest(data) {
		return Request{}, nil, &InstalledManifestError{Plugin: p.Name, Changed: true}
	}
	m, err := manifest.Decode(data)
	if err != nil {
		return Request{}, nil, &InstalledManifestError{Plugin: p.Name, Err: err}
	}
	r := Request{Plugin: p.Name, Version: p.Version, Description: p.Description, Source: p.Source, Tier: tier,
		Runtime: m.Plugin.Runtime, Capabilities: m.Capabilities}
	build := p.BuildCommand
	if build == "" {
		build = m.Hooks.Get(manifest.HookBuild)
	}
	if build != "" {
		r.Hooks = append(r.Hooks, HookItem{Name: manifest.HookBuild, Command: build, Auto: m.Hooks.Get(manifest.HookBuild) == ""})
	}
	for _, h := range manifest.HookNames[1:] {
		if cmd := m.Hooks.Get(h); cmd != "" {
			r.Hooks = append(r.Hooks, HookItem{Name: h, Command: cmd})
		}
	}
	return r, m, nil
}

// errNoChange ends a Store.Update that would write the same file.
var errNoChange = errors.New("no change")

// ChangeGrants grants and revokes items of one installed plugin without
// reinstalling it, under the same locks as install (the tree lock, then
// plugins.toml's), re-reading the record inside them, and writing
// plugins.toml atomically. It is the one place grants change after
// install.
//
// What may be granted is what the installed plugin.toml requests, under
// install's approval rules: named items are explicit consent; a blanket
// yes does not cover exec, network and hooks of an unverified source, or
// a filesystem scope fledge does not know. Granting hooks approves every
// hook the plugin declares, with its exact command, as install does;
// revoking them means post_remove will not run and an update asks again
// before any build or post_install hook runs. The runner reads grants from
// plugins.toml on every run, so a change applies from the next run.
//
// Nothing is written when an item fails a rule or nothing would change.
func (in *Installer) ChangeGrants(ch GrantChange) (*GrantResult, error) {
	grant, err := ParseGrants(ch.Grant)
	if err != nil {
		return nil, err
	}
	revoke, err := ParseGrants(ch.Revoke)
	if err != nil {
		return nil, err
	}
	if (grant != nil && len(grant) == 0) || (revoke != nil && len(revoke) == 0) {
		return nil, fmt.Errorf("%q names nothing to change: name the capabilities (or hooks) to change", GrantNone)
	}
	for it := range grant {
		if revoke[it] {
			return nil, fmt.Errorf("%s is both granted and revoked in one change", it)
		}
	}
	if len(grant) == 0 && len(revoke) == 0 && !ch.Yes {
		return nil, errors.New("nothing to change: name the capabilities (or hooks) to change")
	}

	unlock, err := lockedfile.MutexAt(in.Paths.TreeLock()).Lock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", in.Paths.TreeLock(), err)
	}
	defer unlock()
	if err := recoverLocked(in.Paths, in.Store); err != nil {
		return nil, err
	}
	var res *GrantResult
	var before lockfile.Plugin
	err = updateLogged(in.Store, in.Journal, func(file *lockfile.File) error {
		p, err := file.Resolve(ch.Plugin)
		if err != nil {
			return err
		}
		before = *p
		tier := in.Settings.Tier(p)
		if len(grant) > 0 || ch.Yes {
			// Granting more to a plugin whose source the policy now
			// denies is refused; revoking never is.
			if err := in.checkSource(p.Name, EntrySource(p)); err != nil {
				return err
			}
		}
		r, _, err := InstalledRequest(in.Paths, p, tier)
		if err != nil {
			return err
		}
		res, err = applyGrants(p, r, grant, revoke, ch, in.policy())
		if err != nil {
			return err
		}
		if !res.Changed() {
			return errNoChange
		}
		return nil
	}, func() []grantlog.Record {
		action := grantlog.ActionGrant
		if len(res.Granted) == 0 {
			action = grantlog.ActionRevoke
		}
		consent := map[string]string{}
		for it, how := range res.Consent {
			consent[it] = map[string]string{ConsentNamed: grantlog.ConsentGrant, ConsentYes: grantlog.ConsentYes, ConsentTerminal: grantlog.ConsentInteractive}[how]
		}
		after := before
		after.Capabilities, after.Hooks = res.After.Capabilities, res.After.Hooks
		return []grantlog.Record{recordOf(journal{action: action, consent: consent, policy: res.PolicyDenied}, res.Tier, &before, &after)}
	})
	if errors.Is(err, errNoChange) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// applyGrants changes p (a record inside plugins.toml) as the rules allow.
func applyGrants(p *lockfile.Plugin, r Request, grant, revoke map[string]bool, ch GrantChange, pol *policy.Set) (*GrantResult, error) {
	requested := map[string]bool{}
	for _, it := range r.Items() {
		requested[it] = true
	}
	before := Grants{Capabilities: p.Capabilities, Hooks: maps.Clone(p.Hooks)}
	res := &GrantResult{Plugin: p.Name, Version: p.Version, Tier: r.Tier, Request: r, Before: before, Consent: map[string]string{}}

	for _, it := range SortedGrants(grant) {
		if !requested[it] && !r.RequestsEnv(it) {
			return nil, &NotRequestedError{Plugin: p.Name, Item: it, Requested: r.Items()}
		}
	}
	for _, it := range SortedGrants(revoke) {
		// What is granted can always be withdrawn, requested or not (a
		// live link's manifest may have dropped it).
		if !requested[it] && !before.Has(it) {
			if _, env := manifest.ParseEnvItem(it); env {
				res.Unchanged = append(res.Unchanged, it)
				continue
			}
			return nil, &NotRequestedError{Plugin: p.Name, Item: it, Requested: r.Items()}
		}
	}

	via := ConsentNamed
	if ch.Interactive {
		via = ConsentTerminal
	}
	approve := map[string]string{}
	for it := range grant {
		approve[it] = via
	}
	if ch.Yes {
		var withheld []string
		for _, it := range r.Items() {
			if _, named := approve[it]; named || revoke[it] || before.Has(it) {
				continue
			}
			if d := pol.Allows(string(r.Tier), it); d != nil {
				res.PolicyDenied = append(res.PolicyDenied, *d)
				continue
			}
			if r.NeedsExplicitGrant(it) {
				withheld = append(withheld, it)
				continue
			}
			approve[it] = ConsentYes
		}
		if len(withheld) > 0 {
			return nil, &ApprovalError{Plugin: p.Name, Tier: r.Tier, Missing: withheld, Approved: SortedGrants(keysOf(approve)),
				Cause: NeedsName, Reason: r.explicitReason(withheld)}
		}
	}
	// The policy: what the user named (or chose) that it forbids is
	// refused (what only --yes would have granted was left out above).
	var refused []policy.Denial
	for _, it := range SortedGrants(keysOf(approve)) {
		d := pol.Allows(string(r.Tier), it)
		if d == nil {
			continue
		}
		refused = append(refused, *d)
	}
	if len(refused) > 0 {
		return nil, policy.Deny(p.Name, refused...)
	}
	if _, ok := approve[GrantHooks]; ok {
		// What is approved is what runs: a hook that cannot be shown
		// byte-exact is never approved.
		for _, h := range r.Hooks {
			if err := checkCommand(h.Name, h.Command); err != nil {
				return nil, err
			}
		}
	}

	after := Grants{Capabilities: p.Capabilities, Hooks: maps.Clone(p.Hooks)}
	for _, it := range SortedGrants(keysOf(approve)) {
		switch {
		case it == GrantHooks:
			hooks := map[string]string{}
			for _, h := range r.Hooks {
				hooks[h.Name] = h.Command
			}
			if maps.Equal(hooks, after.Hooks) {
				res.Unchanged = append(res.Unchanged, it)
				continue
			}
			after.Hooks = hooks
		case strings.HasPrefix(it, manifest.EnvItemPrefix):
			name, _ := manifest.ParseEnvItem(it)
			if manifest.CoversEnv(after.Capabilities.Environment, name) {
				res.Unchanged = append(res.Unchanged, it)
				continue
			}
			after.Capabilities = after.Capabilities.Union(manifest.Capabilities{Environment: []string{name}})
		default:
			c := manifest.Capability(it)
			wanted := r.Capabilities.Only(map[manifest.Capability]bool{c: true})
			if len(wanted.Missing(after.Capabilities)) == 0 {
				res.Unchanged = append(res.Unchanged, it)
				continue
			}
			after.Capabilities = after.Capabilities.Union(wanted)
		}
		res.Granted = append(res.Granted, it)
		res.Consent[it] = approve[it]
	}
	for _, it := range SortedGrants(revoke) {
		if !after.Has(it) {
			if !slices.Contains(res.Unchanged, it) {
				res.Unchanged = append(res.Unchanged, it)
			}
			continue
		}
		if name, env := manifest.ParseEnvItem(it); env {
			if !slices.Contains(after.Capabilities.Environment, name) {
				// Granted by a prefix: only the prefix can be revoked.
				var by string
				for _, e := range after.Capabilities.Environment {
					if manifest.CoversEnv([]string{e}, name) {
						by = e
					}
				}
				return nil, fmt.Errorf("%s is granted %s by %s: revoke %s to withdraw it", p.Name, name, manifest.EnvItem(by), manifest.EnvItem(by))
			}
			after.Capabilities.Environment = slices.DeleteFunc(slices.Clone(after.Capabilities.Environment), func(e string) bool { return e == name })
			res.Revoked = append(res.Revoked, it)
			continue
		}
		if it == GrantHooks {
			after.Hooks = nil
		} else {
			keep := map[manifest.Capability]bool{}
			for _, c := range after.Capabilities.List() {
				keep[c] = c != manifest.Capability(it)
			}
			after.Capabilities = after.Capabilities.Only(keep)
		}
		res.Revoked = append(res.Revoked, it)
	}
	p.Capabilities, p.Hooks = after.Capabilities, after.Hooks
	res.After = Grants{Capabilities: after.Capabilities, Hooks: maps.Clone(after.Hooks)}
	return res, nil
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range maps.Keys(m) {
		out[k] = true
	}
	return out
}

package install

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/registry"
)

// GrantHooks is the pseudo-capability that approves hooks and the build
// command in --grant lists.
const GrantHooks = manifest.GrantHooks

// HookItem is one hook or build command shown for approval.
type HookItem struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	// Auto marks a build command fledge detected rather than one the
	// manifest declared.
	Auto bool `json:"auto,omitempty"`
}

// Request is what a plugin asks for, shown to the user for approval.
type Request struct {
	Plugin      string
	Version     string
	Description string
	Source      string
	Tier        registry.Tier
	// Runtime is the manifest's runtime ("wasm", or "" / "native"): it
	// decides what enforces network and filesystem.
	Runtime string
	// Capabilities requested, with the requested filesystem scope.
	Capabilities manifest.Capabilities
	// Hooks lists every hook the manifest declares and the build command
	// (declared or detected), in the order they would run.
	Hooks []HookItem
	// AlsoRuns lists hooks an update carries over, approved before and
	// unchanged: not asked about, but they run too.
	AlsoRuns []HookItem
	// Commit is the git commit to install, when there is one.
	Commit string
	// Installed is the plugin as installed now when this replaces it (a
	// reinstall): what an approval form starts from.
	Installed *Installed
	// Unconfined says who turned kernel confinement off for the plugin
	// (its record's switch, or the one for every plugin), "" when it is
	// on: the approval form says what then enforces nothing.
	Unconfined string
	// Provenance is who signed the revision (nil: a source without
	// signatures); a signer no trusted file vouches for is pinned by
	// this install (trust on first use). ProvenanceNotes say which
	// signatures were found and not accepted.
	Provenance      *lockfile.Provenance
	ProvenanceNotes []string
}

// Installed is what is installed of a plugin that a request replaces.
type Installed struct {
	Version, Commit string
	// Grants are what it is granted now; Requested what it requested when
	// they were approved (empty in records the Rust fledge wrote).
	Grants    Grants
	Requested manifest.Capabilities
	// Provenance is who signed the installed revision (nil: not recorded).
	Provenance *lockfile.Provenance
}

// Current reports whether item (a grant name) is granted now and, for
// hooks, granted with exactly the commands this request would run.
func (r Request) Current(item string) bool {
	if r.Installed == nil {
		return false
	}
	if item != GrantHooks {
		return r.Installed.Grants.Has(item)
	}
	for _, h := range r.Hooks {
		if r.Installed.Grants.Hooks[h.Name] != h.Command {
			return false
		}
	}
	return len(r.Hooks) > 0
}

// Preselected reports whether an approval form should start with item
// selected: on a reinstall, what is granted now (and what is newly
// requested, by the tier's rule); otherwise what a blanket yes would
// approve.
func (r Request) Preselected(item string) bool {
	if r.Installed == nil {
		return !r.NeedsExplicitGrant(item)
	}
	if r.Current(item) {
		return true
	}
	if item == GrantHooks || r.Installed.Requested.Has(manifest.Capability(item)) {
		return false // denied before, or hooks that changed: chosen anew
	}
	return !r.NeedsExplicitGrant(item)
}

// Empty reports whether the plugin requests nothing needing approval.
func (r Request) Empty() bool { return r.Capabilities.IsZero() && len(r.Hooks) == 0 }

// Items lists what needs approval as grant names: capabilities, then
// "hooks" when there are any.
func (r Request) Items() []string {
	var out []string
	for _, c := range r.Capabilities.List() {
		out = append(out, string(c))
	}
	if len(r.Hooks) > 0 {
		out = append(out, GrantHooks)
	}
	return out
}

// RequestsEnv reports whether item is an env: item that r may be granted
// by naming it: a variable its manifest's environment list covers, or any
// valid name when the manifest lists none (every plugin the Rust fledge
// published): such a plugin declares nothing that bounds what the user
// may choose to give it, and only naming the variable grants it.
func (r Request) RequestsEnv(item string) bool {
	name, ok := manifest.ParseEnvItem(item)
	if !ok || manifest.CheckEnvName(name) != "" {
		return false
	}
	declared := r.Capabilities.Environment
	return len(declared) == 0 || manifest.CoversEnv(declared, name)
}

// RequiresHooks reports whether installing cannot proceed without the
// hooks: a build command or a post_install hook must run.
func (r Request) RequiresHooks() bool {
	for _, h := range r.Hooks {
		if h.Name == manifest.HookBuild || h.Name == manifest.HookPostInstall {
			return true
		}
	}
	return false
}

// Decision is what the user approved.
type Decision struct {
	Capabilities manifest.Capabilities
	Hooks        bool
}

// Consent is how the user approves a Request: flags for scripts, or a
// callback that asks a human on a terminal.
type Consent struct {
	// Yes approves everything requested except what NeedsExplicitGrant
	// names: exec, network and hooks of an unverified source, and a
	// filesystem scope fledge does not know.
	Yes bool
	// Grant approves exactly these items (capability names and "hooks");
	// nil when none were named, and empty (not nil) when the user named
	// none ("--grant none"): everything requested is then denied.
	Grant map[string]bool
	// Ask asks a human; nil when no terminal is available. It is only
	// called when neither Yes nor Grant was given.
	Ask func(Request) (Decision, error)
	// Unasked says why Ask is nil, in the user's terms, when the reason is
	// not the absence of a terminal (--ni on one, say).
	Unasked string
	// By, when set, is who approved Grant when it was not the user (a
	// grantlog.Consent constant: ConsentRequired for the policy's
	// [[required]] pre-approval), as the grant log records it.
	By string
	// ConfirmProvenance asks a human whether to accept a revision signed
	// at a lower level, or by another signer, than recorded; nil when no
	// terminal is available (update and sync then refuse it).
	ConfirmProvenance func(*ProvenanceError) (bool, error)
}

// riskyForUnverified reports whether item (a grant name) is approved for
// an unverified source only by an explicit --grant: hooks, and what the
// capability table marks ExplicitWhenUnverified.
func riskyForUnverified(item string) bool {
	ci, ok := manifest.Info(manifest.ItemCapability(item))
	return item == GrantHooks || ok && ci.ExplicitWhenUnverified
}

// NeedsExplicitGrant reports whether item (a grant name from Items) is
// approved only by naming it: --yes does not approve it and an approval
// prompt does not preselect it. That holds for exec, network and hooks of
// an unverified source, and for a filesystem scope fledge does not know
// ("home", "/"), whatever the source: an unknown scope has no bound, so it
// is taken as the most privileged claim.
func (r Request) NeedsExplicitGrant(item string) bool {
	if !r.Capabilities.KnownScope(manifest.Capability(item)) {
		return true
	}
	return r.Tier == registry.TierUnverified && riskyForUnverified(item)
}

// UnverifiedGrants lists, in display order, what an unverified source is
// granted only by name: exec, network and hooks.
func UnverifiedGrants() []string {
	set := map[string]bool{}
	for _, it := range manifest.GrantNames() {
		set[it] = riskyForUnverified(it)
	}
	return SortedGrants(set)
}

// UnverifiedItems lists what r requests that only naming grants because
// its source is unverified (exec, network, hooks), in display order: what
// an approval form asks the user to review.
func (r Request) UnverifiedItems() []string { return unverifiedItems(r.Tier, r.Items()) }

// unverifiedItems keeps the items (grant names) that a source of tier gets
// only by naming them because it is unverified.
func unverifiedItems(tier registry.Tier, items []string) []string {
	if tier != registry.TierUnverified {
		return nil
	}
	var out []string
	for _, it := range items {
		if riskyForUnverified(it) {
			out = append(out, it)
		}
	}
	return out
}

// explicitReason says why a blanket yes did not approve the withheld items.
func (r Request) explicitReason(withheld []string) string {
	var unverified []string
	var reasons []string
	for _, it := range withheld {
		if k := manifest.Capability(it); !r.Capabilities.KnownScope(k) {
			ci, _ := manifest.Info(k)
			reasons = append(reasons, fmt.Sprintf("%s scope %q is not one fledge knows (%s) and counts as %s",
				k, r.Capabilities.Scope(k), strings.Join(ci.Scopes, ", "), ci.Unbounded))
			continue
		}
		unverified = append(unverified, it)
	}
	if len(unverified) > 0 {
		reasons = append([]string{"the source is unverified"}, reasons...)
	}
	return strings.Join(reasons, " and ") + ", so approving everything does not cover " + strings.Join(withheld, ", ") + ": they are granted only by name"
}

// Why an approval failed, for the UI to say what would approve it.
const (
	// NoConsent: nothing was approved and there was no one to ask.
	NoConsent = "no_consent"
	// NeedsName: a blanket yes withheld items that only naming grants.
	NeedsName = "needs_name"
	// HooksRequired: a build command or post_install hook must run to
	// install the plugin, and it was not approved.
	HooksRequired = "hooks_required"
)

// ApprovalError reports a request that was not (fully) approved.
type ApprovalError struct {
	Plugin string
	Tier   registry.Tier
	// Missing lists the grant names still needing approval.
	Missing []string
	// Approved lists the grant names that were approved (or would have
	// been): with Missing, what a retry needs to name.
	Approved []string
	// Cause is NoConsent, NeedsName or HooksRequired.
	Cause string
	// Reason says, in the user's terms, why what was given did not suffice.
	Reason string
}

func (e *ApprovalError) Error() string {
	return fmt.Sprintf("%s needs approval for %s: %s", e.Plugin, strings.Join(e.Missing, ", "), e.Reason)
}

// Decide applies the contract's approval rules to a request. An env:
// item named in Grant (--grant env:GITHUB_TOKEN) grants that variable when
// the request allows it (Request.RequestsEnv).
func (c Consent) Decide(r Request) (Decision, error) {
	d, err := c.decide(r)
	if err != nil {
		return d, err
	}
	for _, it := range SortedGrants(c.Grant) {
		if name, ok := manifest.ParseEnvItem(it); ok && r.RequestsEnv(it) {
			d.Capabilities = d.Capabilities.Union(manifest.Capabilities{Environment: []string{name}})
		}
	}
	return d, nil
}

func (c Consent) decide(r Request) (Decision, error) {
	if r.Empty() {
		return Decision{}, nil
	}
	items := r.Items()
	if !c.Yes && c.Grant == nil {
		if c.Ask == nil {
			why := c.Unasked
			if why == "" {
				why = "there is no terminal to ask on"
			}
			return Decision{}, &ApprovalError{Plugin: r.Plugin, Tier: r.Tier, Missing: items, Cause: NoConsent,
				Reason: why + ", and nothing was approved in advance"}
		}
		d, err := c.Ask(r)
		if err != nil {
			return Decision{}, err
		}
		d.Capabilities = r.Capabilities.Intersect(d.Capabilities)
		if r.RequiresHooks() && !d.Hooks {
			return Decision{}, &ApprovalError{Plugin: r.Plugin, Tier: r.Tier, Missing: []string{GrantHooks},
				Approved: d.items(), Cause: HooksRequired,
				Reason: "its build command or post_install hook must run to install it, and they were not approved"}
		}
		return d, nil
	}

	approved := map[string]bool{}
	var withheld []string
	for _, it := range items {
		switch {
		case c.Grant[it]:
			approved[it] = true
		case c.Yes && r.NeedsExplicitGrant(it):
			withheld = append(withheld, it)
		case c.Yes:
			approved[it] = true
		}
	}
	var ok []string
	for _, it := range items {
		if approved[it] {
			ok = append(ok, it)
		}
	}
	if len(withheld) > 0 {
		return Decision{}, &ApprovalError{Plugin: r.Plugin, Tier: r.Tier, Missing: withheld, Approved: ok,
			Cause: NeedsName, Reason: r.explicitReason(withheld)}
	}
	if r.RequiresHooks() && !approved[GrantHooks] {
		return Decision{}, &ApprovalError{Plugin: r.Plugin, Tier: r.Tier, Missing: []string{GrantHooks}, Approved: ok,
			Cause: HooksRequired, Reason: "its build command or post_install hook must run to install it"}
	}
	keep := map[manifest.Capability]bool{}
	for it := range approved {
		keep[manifest.Capability(it)] = true
	}
	return Decision{Capabilities: r.Capabilities.Only(keep), Hooks: approved[GrantHooks]}, nil
}

// items lists what d approves as grant names, in display order.
func (d Decision) items() []string {
	var out []string
	for _, c := range d.Capabilities.List() {
		out = append(out, string(c))
	}
	if d.Hooks {
		out = append(out, GrantHooks)
	}
	return out
}

// GrantNone names nothing in a grant list: everything requested is denied.
const GrantNone = "none"

// ParseGrants parses grant lists ("exec,store,hooks"). It returns nil when
// the lists name nothing, and an empty set for GrantNone, which stands
// alone.
func ParseGrants(list []string) (map[string]bool, error) {
	var out map[string]bool
	none := false
	for _, item := range list {
		for _, f := range strings.Split(item, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			if out == nil {
				out = map[string]bool{}
			}
			if len(f) > len(manifest.EnvItemPrefix) && strings.EqualFold(f[:len(manifest.EnvItemPrefix)], manifest.EnvItemPrefix) {
				// The variable's name keeps its case: npm_config_x and
				// NPM_CONFIG_X are two variables.
				name := f[len(manifest.EnvItemPrefix):]
				if msg := manifest.CheckEnvName(name); msg != "" {
					return nil, fmt.Errorf("%s%s: the variable %q %s", manifest.EnvItemPrefix, name, name, msg)
				}
				out[manifest.EnvItem(name)] = true
				continue
			}
			f = strings.ToLower(f)
			switch f {
			case GrantNone:
				none = true
				continue
			case GrantHooks:
				out[f] = true
				continue
			}
			c, err := manifest.ParseCapability(f)
			if err != nil {
				return nil, fmt.Errorf("%v (or %q for hooks and the build command, %sNAME for one environment variable, or %q to deny everything)", err, GrantHooks, manifest.EnvItemPrefix, GrantNone)
			}
			out[string(c)] = true
		}
	}
	if none && len(out) > 0 {
		return nil, fmt.Errorf("%q denies everything requested and cannot be combined with %s", GrantNone, strings.Join(SortedGrants(out), ", "))
	}
	return out, nil
}

// SortedGrants lists a grant set in display order: capabilities as
// manifest.Table orders them, then env: items by name, then hooks.
func SortedGrants(set map[string]bool) []string {
	var out, env []string
	for it, ok := range set {
		if _, isEnv := manifest.ParseEnvItem(it); isEnv && ok {
			env = append(env, it)
		}
	}
	slices.Sort(env)
	for _, it := range manifest.GrantNames() {
		if it == GrantHooks {
			out = append(out, env...)
		}
		if set[it] {
			out = append(out, it)
		}
	}
	return out
}

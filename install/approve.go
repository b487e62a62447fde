package install

import (
	"fmt"
	"strings"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/registry"
)

// GrantHooks is the pseudo-capability that approves hooks and the build
// command in --grant lists.
const GrantHooks = "hooks"

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
	// Capabilities requested, with the requested filesystem scope.
	Capabilities manifest.Capabilities
	// Hooks lists every hook the manifest declares and the build command
	// (declared or detected), in the order they would run.
	Hooks []HookItem
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

// needsHooks reports whether installing cannot proceed without the hooks:
// a build command or a post_install hook must run.
func (r Request) needsHooks() bool {
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
	// Grant approves exactly these items (capability names and "hooks").
	Grant map[string]bool
	// Ask asks a human; nil when no terminal is available. It is only
	// called when neither Yes nor Grant was given.
	Ask func(Request) (Decision, error)
}

// riskyForUnverified are approved for an unverified source only by an
// explicit --grant.
var riskyForUnverified = map[string]bool{string(manifest.CapExec): true, string(manifest.CapNetwork): true, GrantHooks: true}

// NeedsExplicitGrant reports whether item (a grant name from Items) is
// approved only by naming it: --yes does not approve it and an approval
// prompt does not preselect it. That holds for exec, network and hooks of
// an unverified source, and for a filesystem scope fledge does not know
// ("home", "/"), whatever the source: an unknown scope has no bound, so it
// is taken as the most privileged claim.
func (r Request) NeedsExplicitGrant(item string) bool {
	if item == string(manifest.CapFilesystem) && !manifest.KnownFilesystemScope(r.Capabilities.Filesystem) {
		return true
	}
	return r.Tier == registry.TierUnverified && riskyForUnverified[item]
}

// explicitReason says why --yes did not approve the withheld items.
func (r Request) explicitReason(withheld []string) string {
	var unverified []string
	var reasons []string
	for _, it := range withheld {
		if it == string(manifest.CapFilesystem) && !manifest.KnownFilesystemScope(r.Capabilities.Filesystem) {
			reasons = append(reasons, fmt.Sprintf("filesystem scope %q is not one fledge knows (%s) and counts as access to every file",
				r.Capabilities.Filesystem, strings.Join(manifest.FilesystemScopes, ", ")))
			continue
		}
		unverified = append(unverified, it)
	}
	if len(unverified) > 0 {
		reasons = append([]string{"the source is unverified"}, reasons...)
	}
	return strings.Join(reasons, " and ") + ", so --yes does not approve " + strings.Join(withheld, ", ") + "; only an explicit --grant does"
}

// ApprovalError reports a request that was not (fully) approved.
type ApprovalError struct {
	Plugin string
	Tier   registry.Tier
	// Missing lists the grant names still needing approval.
	Missing []string
	// Reason says why the flags given did not suffice.
	Reason string
}

func (e *ApprovalError) Error() string {
	return fmt.Sprintf("%s needs approval for %s: %s", e.Plugin, strings.Join(e.Missing, ", "), e.Reason)
}

// Hint tells a human how to approve.
func (e *ApprovalError) Hint() string {
	return fmt.Sprintf("review what it requests, then rerun with --grant %s (or run in a terminal to choose)", strings.Join(e.Missing, ","))
}

// Decide applies the contract's approval rules to a request.
func (c Consent) Decide(r Request) (Decision, error) {
	if r.Empty() {
		return Decision{}, nil
	}
	items := r.Items()
	if !c.Yes && len(c.Grant) == 0 {
		if c.Ask == nil {
			return Decision{}, &ApprovalError{Plugin: r.Plugin, Tier: r.Tier, Missing: items,
				Reason: "no terminal to ask on; approve with --yes or --grant"}
		}
		d, err := c.Ask(r)
		if err != nil {
			return Decision{}, err
		}
		d.Capabilities = r.Capabilities.Intersect(d.Capabilities)
		if r.needsHooks() && !d.Hooks {
			return Decision{}, &ApprovalError{Plugin: r.Plugin, Tier: r.Tier, Missing: []string{GrantHooks},
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
	if len(withheld) > 0 {
		return Decision{}, &ApprovalError{Plugin: r.Plugin, Tier: r.Tier, Missing: withheld, Reason: r.explicitReason(withheld)}
	}
	if r.needsHooks() && !approved[GrantHooks] {
		return Decision{}, &ApprovalError{Plugin: r.Plugin, Tier: r.Tier, Missing: []string{GrantHooks},
			Reason: "its build command or post_install hook must run to install it"}
	}
	keep := map[manifest.Capability]bool{}
	for it := range approved {
		keep[manifest.Capability(it)] = true
	}
	return Decision{Capabilities: r.Capabilities.Only(keep), Hooks: approved[GrantHooks]}, nil
}

// ParseGrants parses a --grant list ("exec,store,hooks").
func ParseGrants(list []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, item := range list {
		for _, f := range strings.Split(item, ",") {
			f = strings.ToLower(strings.TrimSpace(f))
			if f == "" {
				continue
			}
			if f == GrantHooks {
				out[f] = true
				continue
			}
			c, err := manifest.ParseCapability(f)
			if err != nil {
				return nil, fmt.Errorf("--grant: %v (or %q for hooks and the build command)", err, GrantHooks)
			}
			out[string(c)] = true
		}
	}
	return out, nil
}

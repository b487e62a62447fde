package install

import (
	"fmt"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// The admin policy (package policy) at install, update, sync and grant:
// sources it denies are not fetched, refs looser than its pin rule and tags
// younger than its cooldown are not installed, and grants stay within what
// it allows the plugin's tier. What a user named (or chose on a terminal)
// that the policy forbids is refused; what only a blanket yes, an update's
// carry-over or a sync proposal would have granted is left ungranted, and
// said so.

// EntrySource is what the policy's source rules see of an installed
// plugin's record (settings.RecordSource).
func EntrySource(p *lockfile.Plugin) policy.Source { return settings.RecordSource(p) }

// pending is s before its commit is known: judged by repository alone,
// to be judged again once a ref resolves (policy.Source.Pending) and once
// its tree is hashed (checkTree).
func pending(s policy.Source) policy.Source {
	s.Commit, s.Pending, s.Tree, s.TreePending = "", true, "", true
	return s
}

// listedCommit is the commit a ref listing says rev is: its peeled commit,
// or for a tag listed without one (a lightweight tag: git lists an
// annotated tag's peeled commit beside it) the object it names. "" when
// the listing cannot say (an abbreviated commit).
func listedCommit(rev gitfetch.Revision) string {
	if rev.Commit == "" && rev.Kind == gitfetch.KindTag {
		return rev.Object
	}
	return rev.Commit
}

// checkResolved judges s again now that the commit it is about to be
// fetched at is known, before anything is fetched.
func (in *Installer) checkResolved(plugin string, s policy.Source, commit string) error {
	if commit == "" {
		return nil
	}
	s.Commit, s.Pending, s.Tree, s.TreePending = commit, false, "", true
	return in.checkSource(plugin, s)
}

// checkTree judges f's identities a last time, now that its commit and
// the hash of its fetched tree are known (before anything in it is built
// or run): a rule pinned to a tree passes only that tree.
func (in *Installer) checkTree(plugin string, f *fetched, tree string) error {
	if len(f.policyIDs) == 0 && !in.policy().Empty() {
		// Every path to prepare sets them; one that does not is refused
		// rather than let a tree pass unjudged.
		return fmt.Errorf("%s: the fetched tree has no source identity for the admin policy to judge it by", plugin)
	}
	for _, s := range f.policyIDs {
		s.Commit, s.Pending, s.Tree, s.TreePending = f.commit, false, tree, false
		if err := in.checkSource(plugin, s); err != nil {
			return err
		}
	}
	return nil
}

// checkSource refuses a source the policy denies.
func (in *Installer) checkSource(plugin string, s policy.Source) error {
	if d := in.policy().CheckSource(s); d != nil {
		return policy.Deny(plugin, *d)
	}
	return nil
}

// checkPin refuses a git revision looser than the policy's pin rule.
func (in *Installer) checkPin(plugin, refKind, ref string) error {
	if d := in.policy().CheckPin(refKind, ref); d != nil {
		return policy.Deny(plugin, *d)
	}
	return nil
}

// checkTagAge refuses a revision fetched from a tag younger than the
// policy's cooldown.
func (in *Installer) checkTagAge(plugin string, f *fetched) error {
	if f.tag == "" || in.policy().MinTagAge() == 0 {
		return nil
	}
	if d := in.policy().CheckTagAge(f.tag, f.made, in.now()); d != nil {
		return policy.Deny(plugin, *d)
	}
	return nil
}

// decide is Consent.Decide under the policy. Items the policy forbids
// the request's tier are never offered or granted: if the user named one,
// or the plugin cannot be installed without its forbidden hooks, the
// request is refused with a *policy.DeniedError; otherwise they are taken
// out of what is asked and returned, to be reported and logged.
func (in *Installer) decide(r Request) (Decision, []policy.Denial, error) {
	if in.policy().Empty() {
		d, err := in.Consent.Decide(r)
		return d, nil, err
	}
	forbidden := in.forbidden(r)
	if len(forbidden) == 0 {
		d, err := in.Consent.Decide(r)
		return d, nil, err
	}
	var refused []policy.Denial
	for _, d := range forbidden {
		if in.Consent.Grant[d.Item] || (d.Item == GrantHooks && r.RequiresHooks()) {
			refused = append(refused, d)
		}
	}
	if len(refused) > 0 {
		return Decision{}, nil, policy.Deny(r.Plugin, refused...)
	}
	for _, d := range forbidden {
		in.logf("policy: %s cannot be granted %s: %s\n", termsafe.Escape(r.Plugin), d.Item, termsafe.EscapeText(d.Text()))
	}
	dec, err := in.Consent.Decide(without(r, forbidden))
	return dec, forbidden, err
}

// Offerable returns r without the items the policy forbids its tier, for
// a form to offer, and the denials of those it took out.
func (in *Installer) Offerable(r Request) (Request, []policy.Denial) {
	if in.policy().Empty() {
		return r, nil
	}
	forbidden := in.forbidden(r)
	return without(r, forbidden), forbidden
}

// without is r without the items denied.
func without(r Request, denied []policy.Denial) Request {
	if len(denied) == 0 {
		return r
	}
	keep := map[manifest.Capability]bool{}
	for _, c := range r.Capabilities.List() {
		keep[c] = true
	}
	for _, d := range denied {
		if d.Item == GrantHooks {
			r.Hooks = nil
		} else {
			keep[manifest.Capability(d.Item)] = false
		}
	}
	r.Capabilities = r.Capabilities.Only(keep)
	return r
}

// forbidden lists the denials of the items r requests, in display order.
func (in *Installer) forbidden(r Request) []policy.Denial {
	var out []policy.Denial
	for _, it := range r.Items() {
		if d := in.policy().Allows(string(r.Tier), it); d != nil {
			out = append(out, *d)
		}
	}
	return out
}

// consentOf says how each item d approves was consented to: named in
// --grant, chosen on the approval form, or approved by --yes (yesVia: the
// blanket yes of install and update, or a sync proposal's).
func (c Consent) consentOf(d Decision, yesVia string) map[string]string {
	out := map[string]string{}
	for _, it := range d.items() {
		switch {
		case c.By != "":
			out[it] = c.By
		case c.Grant[it]:
			out[it] = grantlog.ConsentGrant
		case !c.Yes && c.Grant == nil:
			out[it] = grantlog.ConsentInteractive
		default:
			out[it] = yesVia
		}
	}
	return out
}

// narrowGrants takes from granted (and hooks) what the policy no longer
// allows tier: what an update carries over, or sync proposes, passes the
// policy again.
func (in *Installer) narrowGrants(tier registry.Tier, granted manifest.Capabilities, hooks map[string]string) (manifest.Capabilities, map[string]string, []policy.Denial) {
	caps, keepHooks, denied := in.policy().Narrow(string(tier), granted, len(hooks) > 0)
	if !keepHooks {
		hooks = map[string]string{}
	}
	return caps, hooks, denied
}

// notes turns denials into the grant log's policy notes.
func notes(ds []policy.Denial) []grantlog.PolicyNote {
	out := make([]grantlog.PolicyNote, 0, len(ds))
	for _, d := range ds {
		out = append(out, grantlog.PolicyNote{Item: d.Item, Rule: d.Rule, File: d.File, Reason: d.Reason})
	}
	return out
}

// PolicyFindings lists what the policy now refuses of an installed
// plugin's record: its source (it does not run), each granted capability
// and approved hooks it forbids the plugin's tier (denied at run time), and
// a ref looser than its pin rule (update refuses it). tier must be decided
// with the trust the policy narrowed.
func PolicyFindings(pol *policy.Set, p *lockfile.Plugin, tier registry.Tier) []policy.Denial {
	if pol.Empty() {
		return nil
	}
	var out []policy.Denial
	if d := pol.CheckSource(EntrySource(p)); d != nil {
		out = append(out, *d)
	}
	_, _, denied := pol.Narrow(string(tier), p.Capabilities, len(p.Hooks) > 0)
	out = append(out, denied...)
	if d := pol.CheckProvenance(EntrySource(p), string(tier), signatureOf(p.Provenance)); d != nil {
		out = append(out, *d)
	}
	if !p.IsLocal() {
		kind := p.RefKind
		if kind == "" && p.PinnedRef == "" {
			kind = "default"
		}
		if kind != "" { // a Rust record's pin is of unknown kind
			if d := pol.CheckPin(kind, p.PinnedRef); d != nil {
				out = append(out, *d)
			}
		}
	}
	return out
}

package install

import (
	"maps"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/registry"
)

// journal is what the grant log needs to know about a change beyond the
// records before and after it: what kind of change, how consent was given
// for what it grants, and what the policy refused or took away.
type journal struct {
	action string
	// consent maps items granted by this change (or carried over by an
	// update) to how they were consented to.
	consent map[string]string
	policy  []policy.Denial
	note    string
	// override says how a lower provenance or another signer was
	// accepted ("" when none was).
	override string
}

// updateLogged changes plugins.toml with change and, when there is a grant
// log, appends the records rec returns (called after change, under the
// same lock) in the same transaction.
func updateLogged(store *lockfile.Store, log *grantlog.Log, change func(*lockfile.File) error, rec func() []grantlog.Record) error {
	if log == nil {
		return store.Update(change)
	}
	return store.Transact(change, func(f *lockfile.File, before []byte) error {
		return log.Append(f, before, rec()...)
	})
}

// recordOf describes a change from before (nil for a fresh install) to
// after (nil for a removal) for the grant log.
func recordOf(j journal, tier registry.Tier, before, after *lockfile.Plugin) grantlog.Record {
	var b, a Grants
	p := after
	if before != nil {
		b = Grants{Capabilities: before.Capabilities, Hooks: before.Hooks}
	}
	if after != nil {
		a = Grants{Capabilities: after.Capabilities, Hooks: after.Hooks}
	} else {
		p = before
	}
	r := grantlog.Record{
		Action: j.action, Plugin: p.Name, Version: p.Version, Source: registry.RedactText(p.Source), URL: p.URL,
		Commit: p.Commit, TreeHash: p.TreeHash, Tier: string(tier), Capabilities: a.Capabilities,
		Hooks: maps.Clone(a.Hooks), Consent: map[string]string{}, Policy: notes(j.policy), Note: j.note,
	}
	if after == nil {
		r.TreeHash = ""
	} else {
		var was *lockfile.Provenance
		if before != nil {
			was = before.Provenance
		}
		r.Provenance = provenanceNote(was, after.Provenance, j.override)
	}
	for _, it := range a.Items() {
		// An env: item is one variable: granted when b did not cover it.
		_, env := manifest.ParseEnvItem(it)
		changed := !b.Has(it) ||
			(it == GrantHooks && !maps.Equal(a.Hooks, b.Hooks)) ||
			(it != GrantHooks && !env && !a.Capabilities.Same(b.Capabilities, manifest.Capability(it)))
		if changed {
			r.Granted = append(r.Granted, it)
		}
		if how, ok := j.consent[it]; ok {
			r.Consent[it] = how
		}
	}
	byPolicy := map[string]bool{}
	for _, d := range j.policy {
		byPolicy[d.Item] = true
	}
	for _, it := range b.Items() {
		if !a.Has(it) {
			r.Removed = append(r.Removed, it)
			if byPolicy[it] || byPolicy[string(manifest.ItemCapability(it))] {
				r.Consent[it] = grantlog.ConsentPolicy
			}
		}
	}
	return r
}

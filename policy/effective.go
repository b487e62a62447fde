package policy

import (
	"slices"
	"time"
)

// Origin names where a rule is: its file (with [policy] for config.toml)
// and the rule as written there.
type Origin struct {
	File string
	Rule string
}

// Effective is the policy in force, rule by rule, with where each rule
// comes from: what `fledge plugins policy` shows.
type Effective struct {
	// Layers lists each layer's file and scope, system first.
	Layers []LayerInfo
	// Allow lists every layer's allow list: a source must match one
	// pattern of each. Deny lists every denied pattern: a source matching
	// any is refused.
	Allow []PatternList
	Deny  []PatternRule
	// Capabilities and Hooks hold, per tier, the limit in force (nil: no
	// limit).
	Capabilities map[string]*TierCaps
	Hooks        map[string]*TierHooks
	// Require is the strictest pin rule and MinTagAge the longest
	// cooldown; nil when no layer sets one.
	Require   *Setting[string]
	MinTagAge *Setting[time.Duration]
	// Owners are the GitHub owners config.toml may trust (nil: any).
	Owners *TierCaps
	// ToolAllow lists every layer's [tools] allow list: a tool is offered
	// to agents when it matches a pattern of each. ToolDeny lists every
	// pattern that keeps a tool from them.
	ToolAllow []PatternList
	ToolDeny  []PatternRule
	// ConfineRequire is [confinement] require (true when any layer says
	// true) and ConfineAllowOff [confinement] allow_off (false when any
	// layer says false); nil when no layer sets it.
	ConfineRequire  *Setting[bool]
	ConfineAllowOff *Setting[bool]
	// ProtectRequire is [protection] require (true when any layer says
	// true); nil when no layer sets it.
	ProtectRequire *Setting[bool]
	// Signers lists each allowed-signers file a layer names (Pattern is
	// its path); ProvenanceRequire every [provenance] require rule: each
	// applies where it says.
	Signers           []PatternRule
	ProvenanceRequire []ProvenanceRule
}

// ProvenanceRule is one [provenance] require rule: the level it wants of
// the sources it applies to ("every source", "tier team", or a source
// pattern).
type ProvenanceRule struct {
	Origin
	AppliesTo string
	Level     string
}

// LayerInfo is one layer's file and scope.
type LayerInfo struct{ File, Scope string }

// PatternList is one layer's allow list.
type PatternList struct {
	Origin
	Patterns []string
}

// PatternRule is one denied pattern.
type PatternRule struct {
	Origin
	Pattern string
}

// TierCaps is what a tier may be granted (or which owners may be trusted):
// the intersection of every layer's list, and the rules that set it.
type TierCaps struct {
	Allowed []string
	From    []Origin
}

// TierHooks says whether a tier's hooks may run, and which rules say so.
type TierHooks struct {
	Allowed bool
	From    []Origin
}

// Setting is a single-valued rule in force and where it comes from.
type Setting[T any] struct {
	Value T
	From  Origin
}

// Effective computes the policy in force from the layers.
func (s *Set) Effective() Effective {
	e := Effective{Capabilities: map[string]*TierCaps{}, Hooks: map[string]*TierHooks{}}
	for _, l := range s.Layers() {
		e.Layers = append(e.Layers, LayerInfo{File: l.Where(), Scope: l.Scope})
		if l.hasAllow {
			pl := PatternList{Origin: Origin{l.Where(), l.Rule("sources", "allow")}, Patterns: []string{}}
			for _, p := range l.allow {
				pl.Patterns = append(pl.Patterns, p.text)
			}
			e.Allow = append(e.Allow, pl)
		}
		for _, p := range l.deny {
			e.Deny = append(e.Deny, PatternRule{Origin: Origin{l.Where(), l.Rule("sources", "deny")}, Pattern: p.text})
		}
		for _, tier := range tiers() {
			if allowed := l.allowedItems(tier); allowed != nil {
				o := Origin{l.Where(), l.Rule("capabilities", tier)}
				if cur := e.Capabilities[tier]; cur == nil {
					e.Capabilities[tier] = &TierCaps{Allowed: allowed, From: []Origin{o}}
				} else {
					cur.Allowed = slices.DeleteFunc(cur.Allowed, func(c string) bool { return !slices.Contains(allowed, c) })
					cur.From = append(cur.From, o)
				}
			}
			if v, ok := l.hooks[tier]; ok {
				o := Origin{l.Where(), l.Rule("hooks", tier)}
				if cur := e.Hooks[tier]; cur == nil {
					e.Hooks[tier] = &TierHooks{Allowed: v, From: []Origin{o}}
				} else {
					cur.Allowed = cur.Allowed && v
					cur.From = append(cur.From, o)
				}
			}
		}
		if l.require != "" && (e.Require == nil || rank(l.require) > rank(e.Require.Value)) {
			e.Require = &Setting[string]{Value: l.require, From: Origin{l.Where(), l.Rule("pins", "require")}}
		}
		if l.minAge > 0 && (e.MinTagAge == nil || l.minAge > e.MinTagAge.Value) {
			e.MinTagAge = &Setting[time.Duration]{Value: l.minAge, From: Origin{l.Where(), l.Rule("pins", "min_tag_age")}}
		}
		if l.hasToolAllow {
			e.ToolAllow = append(e.ToolAllow, PatternList{Origin: Origin{l.Where(), l.Rule("tools", "allow")}, Patterns: slices.Clone(l.toolAllow)})
		}
		for _, p := range l.toolDeny {
			e.ToolDeny = append(e.ToolDeny, PatternRule{Origin: Origin{l.Where(), l.Rule("tools", "deny")}, Pattern: p})
		}
		if r := l.confineRequire; r != nil && (e.ConfineRequire == nil || *r && !e.ConfineRequire.Value) {
			e.ConfineRequire = &Setting[bool]{Value: *r, From: Origin{l.Where(), l.Rule("confinement", "require")}}
		}
		if a := l.confineAllowOff; a != nil && (e.ConfineAllowOff == nil || !*a && e.ConfineAllowOff.Value) {
			e.ConfineAllowOff = &Setting[bool]{Value: *a, From: Origin{l.Where(), l.Rule("confinement", "allow_off")}}
		}
		if r := l.protectRequire; r != nil && (e.ProtectRequire == nil || *r && !e.ProtectRequire.Value) {
			e.ProtectRequire = &Setting[bool]{Value: *r, From: Origin{l.Where(), l.Rule("protection", "require")}}
		}
		if pl := l.provenance; pl != nil {
			for _, f := range pl.signers {
				e.Signers = append(e.Signers, PatternRule{Origin: Origin{l.Where(), l.Rule("provenance", "allowed_signers")}, Pattern: f})
			}
			if pl.require != "" {
				e.ProvenanceRequire = append(e.ProvenanceRequire, ProvenanceRule{Origin{l.Where(), l.Rule("provenance", "require")}, "every source", pl.require})
			}
			for _, tier := range tiers() {
				if v, ok := pl.tiers[tier]; ok {
					e.ProvenanceRequire = append(e.ProvenanceRequire, ProvenanceRule{Origin{l.Where(), l.Rule("provenance.tiers", tier)}, "tier " + tier, v})
				}
			}
			for _, sr := range pl.sources {
				e.ProvenanceRequire = append(e.ProvenanceRequire, ProvenanceRule{Origin{l.Where(), l.Rule("provenance", "sources")}, sr.p.text, sr.require})
			}
		}
		if l.hasOwner {
			o := Origin{l.Where(), l.Rule("trust", "owners")}
			if e.Owners == nil {
				e.Owners = &TierCaps{Allowed: slices.Clone(l.owners), From: []Origin{o}}
			} else {
				e.Owners.Allowed = slices.DeleteFunc(e.Owners.Allowed, func(x string) bool { return !ownerIn(l.owners, x) })
				e.Owners.From = append(e.Owners.From, o)
			}
		}
	}
	return e
}

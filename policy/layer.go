package policy

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/trust"
)

// ItemHooks is the grant name of hooks and build commands.
const ItemHooks = manifest.GrantHooks

// Pin levels, from loosest to strictest.
const (
	// PinAny: any ref, branches included.
	PinAny = "any"
	// PinTag: a tag, a semver constraint (it resolves to a tag) or a
	// commit: never a branch or the default branch, which move.
	PinTag = "tag"
	// PinCommit: an exact commit hash only.
	PinCommit = "commit"
)

// pinRank orders pin levels (a function, not a map: a package-level map
// is built at start-up by every command).
func pinRank(level string) (int, bool) {
	switch level {
	case "", PinAny:
		return 0, true
	case PinTag:
		return 1, true
	case PinCommit:
		return 2, true
	}
	return 0, false
}

func rank(level string) int {
	r, _ := pinRank(level)
	return r
}

// Scopes say where a layer came from.
const (
	ScopeSystem = "system"
	ScopeEnv    = "FLEDGE_POLICY"
	ScopeConfig = "config"
)

// fileRules is a policy file as written. Pointers tell an absent rule (no
// limit) from an empty one (allow nothing).
type fileRules struct {
	Sources *struct {
		Allow *[]string `toml:"allow"`
		Deny  []string  `toml:"deny"`
	} `toml:"sources"`
	Capabilities *tierLists `toml:"capabilities"`
	Hooks        *tierBools `toml:"hooks"`
	Pins         *struct {
		Require   string `toml:"require"`
		MinTagAge string `toml:"min_tag_age"`
	} `toml:"pins"`
	Trust *struct {
		Owners *[]string `toml:"owners"`
	} `toml:"trust"`
	Tools *toolRules `toml:"tools"`
	// Mirrors maps source patterns to mirrors (mirrors.go).
	Mirrors     map[string]string `toml:"mirrors"`
	Confinement *struct {
		Require  *bool `toml:"require"`
		AllowOff *bool `toml:"allow_off"`
	} `toml:"confinement"`
	Protection *struct {
		Require *bool `toml:"require"`
	} `toml:"protection"`
	Revocation *revocationRules `toml:"revocation"`
	Required   []requiredRule   `toml:"required"`
	Provenance *provenanceRules `toml:"provenance"`
}

type tierLists struct {
	Local      *[]string `toml:"local"`
	Official   *[]string `toml:"official"`
	Team       *[]string `toml:"team"`
	Unverified *[]string `toml:"unverified"`
}

func (t *tierLists) byTier() map[string]*[]string {
	return map[string]*[]string{string(trust.Local): t.Local, string(trust.Official): t.Official, string(trust.Team): t.Team, string(trust.Unverified): t.Unverified}
}

type tierBools struct {
	Local      *bool `toml:"local"`
	Official   *bool `toml:"official"`
	Team       *bool `toml:"team"`
	Unverified *bool `toml:"unverified"`
}

func (t *tierBools) byTier() map[string]*bool {
	return map[string]*bool{string(trust.Local): t.Local, string(trust.Official): t.Official, string(trust.Team): t.Team, string(trust.Unverified): t.Unverified}
}

// Layer is one policy file (or config.toml's [policy] table), validated.
type Layer struct {
	// File is the file the rules came from.
	File string
	// Scope is ScopeSystem, ScopeEnv or ScopeConfig.
	Scope string
	// prefix starts rule names: "" in a policy file, "policy." in
	// config.toml, so "[policy.capabilities] team" names the rule as
	// written there.
	prefix string

	allow    []pattern // nil: no allow rule
	hasAllow bool
	deny     []pattern
	caps     map[string]map[string]bool // tier → allowed items; a tier absent: no limit
	hooks    map[string]bool            // tier → may hooks run; absent: no limit
	require  string
	minAge   time.Duration
	owners   []string
	hasOwner bool
	// toolAllow (when hasToolAllow) and toolDeny are [tools] allow and
	// deny (tools.go).
	toolAllow    []string
	hasToolAllow bool
	toolDeny     []string
	// confineRequire and confineAllowOff are [confinement] require and
	// allow_off (nil: not set).
	confineRequire  *bool
	confineAllowOff *bool
	// mirrors are [mirrors] (mirrors.go), the most specific first.
	mirrors []mirrorRule
	// protectRequire is [protection] require (nil: not set; protect.go).
	protectRequire *bool
	// revocation is [revocation] (nil: none; revocation.go).
	revocation *revocationList
	// required are the [[required]] plugins (required.go).
	required []Required
	// provenance is [provenance] (provenance.go).
	provenance *provenanceLayer
	// raw is the file's bytes (or the [policy] table's), for Digest.
	raw []byte
}

// Rule names a rule as written in its file: "[pins] require".
func (l *Layer) Rule(table, key string) string {
	return "[" + l.prefix + table + "] " + key
}

// Where says where the layer came from: its file, and for config.toml the
// table.
func (l *Layer) Where() string {
	if l.prefix != "" {
		return l.File + " [" + strings.TrimSuffix(l.prefix, ".") + "]"
	}
	return l.File
}

// InvalidError reports a policy file that cannot be read or is not a valid
// policy. fledge refuses everything a policy governs until it is fixed: a
// typo must not silently disable a rule.
type InvalidError struct {
	File string
	Err  error
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("policy %s: %v; until it is fixed, fledge refuses to install, update, sync, grant or run plugins", e.File, e.Err)
}

func (e *InvalidError) Unwrap() error { return e.Err }

// Parse reads one policy file's contents. file names it in errors and
// refusals.
func Parse(file string, data []byte) (*Layer, error) {
	return parse(file, "", data, nil)
}

func parse(file, prefix string, data []byte, keep func(toml.Key) bool) (*Layer, error) {
	var wrap struct {
		Policy fileRules `toml:"policy"`
	}
	var r *fileRules
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var err error
	if prefix == "" {
		r = &fileRules{}
		err = dec.Decode(r)
	} else {
		err = dec.Decode(&wrap)
		r = &wrap.Policy
	}
	if err != nil {
		if msg := decodeProblem(err, keep); msg != "" {
			return nil, &InvalidError{File: file, Err: errors.New(msg)}
		}
	}
	l := &Layer{File: file, prefix: prefix, raw: data}
	if err := l.load(r); err != nil {
		return nil, &InvalidError{File: file, Err: err}
	}
	return l, nil
}

// decodeProblem describes a decode error, or returns "" when every problem
// is an unknown key that keep says belongs to someone else (config.toml's
// other tables).
func decodeProblem(err error, keep func(toml.Key) bool) string {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var msgs []string
		for i := range strict.Errors {
			e := &strict.Errors[i]
			if keep != nil && !keep(e.Key()) {
				continue
			}
			row, _ := e.Position()
			msgs = append(msgs, fmt.Sprintf("line %d: unknown key %s (a misspelt rule would silently not apply)", row, strings.Join(e.Key(), ".")))
		}
		return strings.Join(msgs, "; ")
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Sprintf("line %d, column %d: %v", row, col, de)
	}
	return err.Error()
}

func (l *Layer) load(r *fileRules) error {
	if s := r.Sources; s != nil {
		if s.Allow != nil {
			l.hasAllow = true
			l.allow = []pattern{}
			for _, p := range *s.Allow {
				pt, err := parsePattern(p)
				if err != nil {
					return fmt.Errorf("%s: %w", l.Rule("sources", "allow"), err)
				}
				l.allow = append(l.allow, pt)
			}
		}
		for _, p := range s.Deny {
			pt, err := parsePattern(p)
			if err != nil {
				return fmt.Errorf("%s: %w", l.Rule("sources", "deny"), err)
			}
			l.deny = append(l.deny, pt)
		}
	}
	if c := r.Capabilities; c != nil {
		l.caps = map[string]map[string]bool{}
		for _, tier := range tiers() {
			list := c.byTier()[tier]
			if list == nil {
				continue
			}
			set := map[string]bool{}
			for _, it := range *list {
				name := strings.ToLower(strings.TrimSpace(it))
				if _, err := manifest.ParseCapability(name); err != nil {
					return fmt.Errorf("%s: %w (hooks are limited under [hooks])", l.Rule("capabilities", tier), err)
				}
				set[name] = true
			}
			l.caps[tier] = set
		}
	}
	if h := r.Hooks; h != nil {
		l.hooks = map[string]bool{}
		for _, tier := range tiers() {
			if v := h.byTier()[tier]; v != nil {
				l.hooks[tier] = *v
			}
		}
	}
	if p := r.Pins; p != nil {
		if _, ok := pinRank(p.Require); !ok {
			return fmt.Errorf("%s = %q: want %q, %q or %q", l.Rule("pins", "require"), p.Require, PinAny, PinTag, PinCommit)
		}
		l.require = p.Require
		if p.MinTagAge != "" {
			d, err := ParseAge(p.MinTagAge)
			if err != nil {
				return fmt.Errorf("%s = %q: %w", l.Rule("pins", "min_tag_age"), p.MinTagAge, err)
			}
			l.minAge = d
		}
	}
	if c := r.Confinement; c != nil {
		l.confineRequire, l.confineAllowOff = c.Require, c.AllowOff
	}
	if p := r.Protection; p != nil {
		l.protectRequire = p.Require
	}
	if err := l.loadRevocation(r.Revocation); err != nil {
		return err
	}
	if err := l.loadRequired(r.Required); err != nil {
		return err
	}
	if err := l.loadProvenance(r.Provenance); err != nil {
		return err
	}
	if err := l.loadTools(r.Tools); err != nil {
		return err
	}
	if err := l.loadMirrors(r.Mirrors); err != nil {
		return err
	}
	if t := r.Trust; t != nil && t.Owners != nil {
		l.hasOwner = true
		l.owners = []string{}
		for _, o := range *t.Owners {
			o = strings.TrimSpace(o)
			if o == "" || strings.ContainsAny(o, "/ \t*?[") {
				return fmt.Errorf("%s: %q is not a GitHub owner name", l.Rule("trust", "owners"), o)
			}
			l.owners = append(l.owners, o)
		}
	}
	return nil
}

// ParseAge reads a duration such as "72h", "90m" or "3d" (days of 24
// hours). It must not be negative.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want a duration such as 72h, 90m or 3d")
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 72h, 90m or 3d")
	}
	return d, nil
}

// tiers lists the tier names (package trust's) in the order rules are
// shown.
func tiers() []string {
	out := make([]string, len(trust.Tiers))
	for i, t := range trust.Tiers {
		out[i] = string(t)
	}
	return out
}

// allowedItems lists what a tier may be granted under this layer, in
// display order, or nil when it sets no limit for the tier.
func (l *Layer) allowedItems(tier string) []string {
	set, ok := l.caps[tier]
	if !ok {
		return nil
	}
	out := []string{}
	for _, c := range manifest.AllCapabilities {
		if set[string(c)] {
			out = append(out, string(c))
		}
	}
	return out
}

func ownerIn(list []string, owner string) bool {
	return slices.ContainsFunc(list, func(o string) bool { return strings.EqualFold(o, owner) })
}

package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// Capability names a power a plugin may request and be granted.
type Capability string

// The capabilities fledge knows. Exec, Store and Metadata gate fledge-v1
// host operations; Network and Filesystem bound a plugin's own code: the
// wasm sandbox's, and a native plugin's where the kernel can confine it
// (package confine).
const (
	CapExec       Capability = "exec"
	CapStore      Capability = "store"
	CapMetadata   Capability = "metadata"
	CapNetwork    Capability = "network"
	CapFilesystem Capability = "filesystem"
	// CapEnvironment lists the environment variables a native plugin
	// needs beyond the base environment (package confine): names, or
	// prefixes ending in '*'.
	CapEnvironment Capability = "environment"
)

// EnvItem is the grant name of one environment variable (or prefix) of
// CapEnvironment: "env:GITHUB_TOKEN". Granting "environment" grants every
// variable the manifest lists; EnvItem grants one.
func EnvItem(name string) string { return EnvItemPrefix + name }

// EnvItemPrefix starts the grant name of one environment variable.
const EnvItemPrefix = "env:"

// ParseEnvItem returns the variable an env: grant name names.
func ParseEnvItem(item string) (name string, ok bool) {
	return strings.CutPrefix(item, EnvItemPrefix)
}

// ItemCapability is the capability a grant name belongs to: the
// capability itself, or CapEnvironment for an env: item.
func ItemCapability(item string) Capability {
	if _, ok := ParseEnvItem(item); ok {
		return CapEnvironment
	}
	return Capability(item)
}

// GrantHooks is the grant name that approves a plugin's hooks and build
// command: not a capability, but named beside them in --grant lists, the
// approval form, policy rules and the grant log.
const GrantHooks = "hooks"

// HooksMeaning says what a grant of hooks allows, as the approval form and
// completion show it.
const HooksMeaning = "run the hooks and build command listed above"

// NoScope is the scope of a scoped capability that claims nothing.
const NoScope = "none"

// CapabilityInfo is one row of the capability table: what every part of
// fledge except the enforcing code needs to know of a capability. The
// manifest, the approval form, audit, info, completion, the catalog, policy
// and the grant log iterate Table; adding a capability is a field of
// Capabilities, a row here, and its enforcement.
type CapabilityInfo struct {
	// Name is the capability's key under [capabilities] in plugin.toml
	// and plugins.toml, its JSON key, and its grant name in --grant,
	// grant, revoke, policy rules and the grant log.
	Name Capability
	// Meaning says what a grant allows, as the approval form and
	// completion show it.
	Meaning string
	// ExplicitWhenUnverified marks a capability that an unverified source
	// is granted only by naming it: --yes does not grant it, the approval
	// form does not preselect it, and audit warns when it is granted.
	ExplicitWhenUnverified bool
	// Modifies marks a capability that lets a plugin change things beyond
	// its own data: a command holding it is not a read-only tool.
	Modifies bool
	// Confinable marks a capability that a plugin's own code exercises
	// (network, files), so only a sandbox enforces it: the wasm host, or
	// the kernel for a native plugin (package confine). The approval form
	// says per plugin which, or that nothing does here. The others are
	// requests to fledge, which the runner answers.
	Confinable bool
	// Scopes, for a capability claimed with a scope rather than as a
	// switch (filesystem = "project"), lists the scopes fledge knows, NoScope
	// first; nil for a switch. A scope outside it has no defined bound, so
	// it counts as the widest claim: only naming the capability grants it.
	Scopes []string
	// Unbounded says what an unknown scope counts as ("access to every
	// file"), UnboundedMeaning how the approval form explains it.
	Unbounded, UnboundedMeaning string

	flag  func(*Capabilities) *bool     // a switch's field
	scope func(*Capabilities) *string   // a scoped capability's field
	list  func(*Capabilities) *[]string // a listed capability's field
}

// Listed reports whether the capability is claimed as a list of entries
// (environment = ["GITHUB_TOKEN"]) rather than as a switch or a scope.
func (ci CapabilityInfo) Listed() bool { return ci.list != nil }

// Table lists every capability fledge knows, in display order.
var Table = []CapabilityInfo{
	{Name: CapExec, Meaning: "run shell commands through fledge", ExplicitWhenUnverified: true, Modifies: true,
		flag: func(c *Capabilities) *bool { return &c.Exec }},
	{Name: CapStore, Meaning: "keep data between runs",
		flag: func(c *Capabilities) *bool { return &c.Store }},
	{Name: CapMetadata, Meaning: "read project metadata and (filtered) environment",
		flag: func(c *Capabilities) *bool { return &c.Metadata }},
	{Name: CapNetwork, Meaning: "make network requests", Confinable: true, ExplicitWhenUnverified: true,
		flag: func(c *Capabilities) *bool { return &c.Network }},
	{Name: CapFilesystem, Meaning: "access files", Confinable: true,
		Scopes:           []string{NoScope, "project", "plugin"},
		Unbounded:        "access to every file",
		UnboundedMeaning: "access every file: an unknown scope has no bound",
		scope:            func(c *Capabilities) *string { return &c.Filesystem }},
	{Name: CapEnvironment, Meaning: "receive these environment variables (its code reads them directly)", ExplicitWhenUnverified: true,
		list: func(c *Capabilities) *[]string { return &c.Environment }},
}

// AllCapabilities lists every capability in display order.
var AllCapabilities = func() []Capability {
	out := make([]Capability, len(Table))
	for i, ci := range Table {
		out[i] = ci.Name
	}
	return out
}()

// Info returns k's row of Table; ok is false for a name fledge does not
// know.
func Info(k Capability) (info CapabilityInfo, ok bool) {
	for _, ci := range Table {
		if ci.Name == k {
			return ci, true
		}
	}
	return CapabilityInfo{}, false
}

// GrantNames lists every grant name in display order: the capabilities,
// then hooks.
func GrantNames() []string {
	out := make([]string, 0, len(Table)+1)
	for _, ci := range Table {
		out = append(out, string(ci.Name))
	}
	return append(out, GrantHooks)
}

// GrantMeaning says what a grant of item (a capability or hooks) allows,
// or "" for a name fledge does not know.
func GrantMeaning(item string) string {
	if item == GrantHooks {
		return HooksMeaning
	}
	ci, _ := Info(Capability(item))
	return ci.Meaning
}

// ParseCapability accepts a capability name, case-insensitively.
func ParseCapability(s string) (Capability, error) {
	c := Capability(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := Info(c); ok {
		return c, nil
	}
	return "", fmt.Errorf("unknown capability %q (known: %s)", s, JoinCapabilities(AllCapabilities))
}

// Capabilities is the [capabilities] table: what a manifest requests, or what
// plugins.toml records as granted. Every capability defaults to off. Each
// field has a row in Table, named as its toml and json keys.
type Capabilities struct {
	Exec     bool `toml:"exec" json:"exec"`
	Store    bool `toml:"store" json:"store"`
	Metadata bool `toml:"metadata" json:"metadata"`
	Network  bool `toml:"network,omitempty" json:"network"`
	// Filesystem is the scope claimed ("none", "project", ...); empty or
	// "none" means no claim. A scope outside FilesystemScopes counts as
	// the widest claim (see KnownFilesystemScope).
	Filesystem string `toml:"filesystem,omitempty" json:"filesystem,omitempty"`
	// Environment lists the environment variables claimed beyond the base
	// environment a confined native plugin gets: names, or prefixes ending
	// in '*' ("AWS_*"), each valid by CheckEnvName.
	Environment []string `toml:"environment,omitempty" json:"environment,omitempty"`
}

// FilesystemScopes are the filesystem scopes the Rust fledge defines:
// "none" (no access), "project" (read the project) and "plugin" (read the
// project, read and write the plugin's data).
var FilesystemScopes = func() []string { ci, _ := Info(CapFilesystem); return ci.Scopes }()

// KnownFilesystemScope reports whether scope is empty or one of
// FilesystemScopes. Any other value ("home", "/", "all") has no defined
// bound, so fledge treats it as the most privileged claim: approving it
// takes an explicit grant of filesystem, never a blanket yes.
func KnownFilesystemScope(scope string) bool {
	return Capabilities{Filesystem: scope}.KnownScope(CapFilesystem)
}

// Has reports whether c holds capability k.
func (c Capabilities) Has(k Capability) bool {
	ci, ok := Info(k)
	switch {
	case !ok:
		return false
	case ci.flag != nil:
		return *ci.flag(&c)
	case ci.list != nil:
		return len(*ci.list(&c)) > 0
	}
	s := *ci.scope(&c)
	return s != "" && s != NoScope
}

// Scope returns the scope c claims of k: "" for a switch or no claim.
func (c Capabilities) Scope(k Capability) string {
	if ci, ok := Info(k); ok && ci.scope != nil && c.Has(k) {
		return *ci.scope(&c)
	}
	return ""
}

// KnownScope reports whether the scope c claims of k, if any, is one of
// k's Scopes: false for an unknown scope, which has no defined bound.
func (c Capabilities) KnownScope(k Capability) bool {
	ci, _ := Info(k)
	s := c.Scope(k)
	if s == "" {
		return true
	}
	for _, known := range ci.Scopes {
		if s == known {
			return true
		}
	}
	return false
}

// Same reports whether c and o hold k alike: both not at all, or both with
// the same scope.
func (c Capabilities) Same(o Capabilities, k Capability) bool {
	if ci, _ := Info(k); ci.list != nil {
		a, b := sortedSet(*ci.list(&c)), sortedSet(*ci.list(&o))
		return slices.Equal(a, b)
	}
	return c.Has(k) == o.Has(k) && c.Scope(k) == o.Scope(k)
}

// Entries returns the entries c claims of a listed capability k (nil for
// the others), sorted, each once.
func (c Capabilities) Entries(k Capability) []string {
	if ci, _ := Info(k); ci.list != nil {
		return sortedSet(*ci.list(&c))
	}
	return nil
}

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// Label names k as c holds it, for a person: its name, with the scope
// claimed in parentheses ("filesystem (project)"), made safe to print.
func (c Capabilities) Label(k Capability) string {
	if ci, _ := Info(k); ci.list != nil {
		return string(k) + " (" + termsafe.Escape(strings.Join(c.Entries(k), ", ")) + ")"
	} else if ci.scope != nil {
		return string(k) + " (" + termsafe.Escape(*ci.scope(&c)) + ")"
	}
	return string(k)
}

// Shown is k as list, info, audit, tools and MCP show it: true or false for
// a switch, the scope claimed for a scoped capability (NoScope when none).
func (c Capabilities) Shown(k Capability) any {
	ci, _ := Info(k)
	if ci.list != nil {
		if e := c.Entries(k); e != nil {
			return e
		}
		return []string{}
	}
	if ci.scope == nil {
		return c.Has(k)
	}
	if s := *ci.scope(&c); s != "" {
		return s
	}
	return NoScope
}

// ShownJSON is c as the capabilities object of list, info, audit and tools
// output: every capability in Table order, each as Shown. Nothing is
// HTML-escaped; an encoder that escapes HTML escapes what it embeds.
func (c Capabilities) ShownJSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, k := range AllCapabilities {
		if i > 0 {
			b.WriteByte(',')
		}
		_ = enc.Encode(string(k)) // a string or a bool cannot fail
		b.Truncate(b.Len() - 1)   // Encode's newline
		b.WriteByte(':')
		_ = enc.Encode(c.Shown(k))
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Modifies reports whether c holds a capability that lets a plugin change
// things beyond its own data (see CapabilityInfo.Modifies).
func (c Capabilities) Modifies() bool {
	for _, ci := range Table {
		if ci.Modifies && c.Has(ci.Name) {
			return true
		}
	}
	return false
}

// List returns the capabilities held, in display order.
func (c Capabilities) List() []Capability {
	var out []Capability
	for _, k := range AllCapabilities {
		if c.Has(k) {
			out = append(out, k)
		}
	}
	return out
}

// with returns c with k set as o holds it (its scope too), or cleared when
// o does not hold it.
func (c Capabilities) with(k Capability, o Capabilities) Capabilities {
	ci, _ := Info(k)
	switch {
	case ci.flag != nil:
		*ci.flag(&c) = o.Has(k)
	case ci.list != nil:
		*ci.list(&c) = o.Entries(k)
	default:
		*ci.scope(&c) = o.Scope(k)
	}
	return c
}

// Only returns the subset of c named in keep. A scope is kept as requested
// when its capability is kept.
func (c Capabilities) Only(keep map[Capability]bool) Capabilities {
	var out Capabilities
	for _, k := range AllCapabilities {
		if keep[k] {
			out = out.with(k, c)
		}
	}
	return out
}

// Intersect returns what both c and o hold. A scope survives only when
// both name the same one, so an edited manifest cannot widen it.
//
// For a listed capability, c being what a manifest requests and o what is
// granted, it is o's entries that c's entries cover (CoversEnv): a manifest
// that claims none of it keeps o's whole list, since those were granted by
// name to a plugin that declared nothing to bound them.
func (c Capabilities) Intersect(o Capabilities) Capabilities {
	var out Capabilities
	for _, k := range AllCapabilities {
		if ci, _ := Info(k); ci.list != nil {
			var keep []string
			for _, e := range o.Entries(k) {
				if !c.Has(k) || CoversEnv(c.Entries(k), e) {
					keep = append(keep, e)
				}
			}
			*ci.list(&out) = keep
			continue
		}
		if c.Has(k) && c.Same(o, k) {
			out = out.with(k, c)
		}
	}
	return out
}

// Union returns what either c or o holds; o's scope wins when it names
// one.
func (c Capabilities) Union(o Capabilities) Capabilities {
	out := c
	for _, k := range AllCapabilities {
		if ci, _ := Info(k); ci.list != nil {
			*ci.list(&out) = sortedSet(append(c.Entries(k), o.Entries(k)...))
			continue
		}
		if o.Has(k) {
			out = out.with(k, o)
		}
	}
	return out
}

// Missing returns what c holds that granted does not (or holds with
// another scope).
func (c Capabilities) Missing(granted Capabilities) []Capability {
	var out []Capability
	for _, k := range c.List() {
		if ci, _ := Info(k); ci.list != nil {
			for _, e := range c.Entries(k) {
				if !CoversEnv(granted.Entries(k), e) {
					out = append(out, k)
					break
				}
			}
			continue
		}
		if !c.Same(granted, k) {
			out = append(out, k)
		}
	}
	return out
}

// IsZero reports whether nothing is held.
func (c Capabilities) IsZero() bool { return len(c.List()) == 0 }

// JoinCapabilities renders a list as "exec, store".
func JoinCapabilities(cs []Capability) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

// SortCapabilities orders cs as AllCapabilities does.
func SortCapabilities(cs []Capability) {
	rank := map[Capability]int{}
	for i, k := range AllCapabilities {
		rank[k] = i
	}
	sort.SliceStable(cs, func(i, j int) bool { return rank[cs[i]] < rank[cs[j]] })
}

// CoversEnv reports whether the environment entries list (names, or
// prefixes ending in '*') cover entry: it is one of them, or a name or
// narrower prefix that one of the prefixes holds.
func CoversEnv(list []string, entry string) bool {
	for _, e := range list {
		if e == entry {
			return true
		}
		if prefix, ok := strings.CutSuffix(e, "*"); ok && strings.HasPrefix(strings.TrimSuffix(entry, "*"), prefix) {
			return true
		}
	}
	return false
}

// CheckEnvName says what is wrong with an environment entry (a name of
// letters, digits and '_' not starting with a digit, or such a prefix
// ending in '*'), or "" when nothing is.
func CheckEnvName(entry string) string {
	name := strings.TrimSuffix(entry, "*")
	switch {
	case name == "":
		return "is no variable name: name the variables, or a prefix such as \"AWS_*\" (a lone \"*\" would be the whole environment)"
	case name[0] >= '0' && name[0] <= '9':
		return "starts with a digit"
	}
	for _, r := range name {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return fmt.Sprintf("holds %q: a variable name has only letters, digits and '_' (and may end in '*' for a prefix)", r)
		}
	}
	return ""
}

// Equal reports whether c and o hold the same capabilities alike (a
// listed capability's entries as a set).
func (c Capabilities) Equal(o Capabilities) bool {
	for _, k := range AllCapabilities {
		if !c.Same(o, k) {
			return false
		}
	}
	return true
}

package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
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
)

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
	// Scopes, for a capability claimed with a scope rather than as a
	// switch (filesystem = "project"), lists the scopes fledge knows, NoScope
	// first; nil for a switch. A scope outside it has no defined bound, so
	// it counts as the widest claim: only naming the capability grants it.
	Scopes []string
	// Unbounded says what an unknown scope counts as ("access to every
	// file"), UnboundedMeaning how the approval form explains it.
	Unbounded, UnboundedMeaning string

	flag  func(*Capabilities) *bool   // a switch's field
	scope func(*Capabilities) *string // a scoped capability's field
}

// Table lists every capability fledge knows, in display order.
var Table = []CapabilityInfo{
	{Name: CapExec, Meaning: "run shell commands through fledge", ExplicitWhenUnverified: true, Modifies: true,
		flag: func(c *Capabilities) *bool { return &c.Exec }},
	{Name: CapStore, Meaning: "keep data between runs",
		flag: func(c *Capabilities) *bool { return &c.Store }},
	{Name: CapMetadata, Meaning: "read project metadata and (filtered) environment",
		flag: func(c *Capabilities) *bool { return &c.Metadata }},
	{Name: CapNetwork, Meaning: "make network requests (recorded; not enforceable for native binaries)", ExplicitWhenUnverified: true,
		flag: func(c *Capabilities) *bool { return &c.Network }},
	{Name: CapFilesystem, Meaning: "access files (recorded; not enforceable for native binaries)",
		Scopes:           []string{NoScope, "project", "plugin"},
		Unbounded:        "access to every file",
		UnboundedMeaning: "access every file: an unknown scope has no bound (recorded; not enforceable for native binaries)",
		scope:            func(c *Capabilities) *string { return &c.Filesystem }},
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
	return c.Has(k) == o.Has(k) && c.Scope(k) == o.Scope(k)
}

// Label names k as c holds it, for a person: its name, with the scope
// claimed in parentheses ("filesystem (project)"), made safe to print.
func (c Capabilities) Label(k Capability) string {
	if ci, _ := Info(k); ci.scope != nil {
		return string(k) + " (" + termsafe.Escape(*ci.scope(&c)) + ")"
	}
	return string(k)
}

// Shown is k as list, info, audit, tools and MCP show it: true or false for
// a switch, the scope claimed for a scoped capability (NoScope when none).
func (c Capabilities) Shown(k Capability) any {
	ci, _ := Info(k)
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
	if ci.flag != nil {
		*ci.flag(&c) = o.Has(k)
	} else {
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
func (c Capabilities) Intersect(o Capabilities) Capabilities {
	var out Capabilities
	for _, k := range AllCapabilities {
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

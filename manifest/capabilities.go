package manifest

import (
	"fmt"
	"sort"
	"strings"
)

// Capability names a power a plugin may request and be granted.
type Capability string

// The capabilities fledge knows. Exec, Store and Metadata gate fledge-v1
// host operations; Network and Filesystem are recorded and shown so users see
// what a plugin claims, though a native binary cannot be confined to them.
const (
	CapExec       Capability = "exec"
	CapStore      Capability = "store"
	CapMetadata   Capability = "metadata"
	CapNetwork    Capability = "network"
	CapFilesystem Capability = "filesystem"
)

// AllCapabilities lists every capability in display order.
var AllCapabilities = []Capability{CapExec, CapStore, CapMetadata, CapNetwork, CapFilesystem}

// ParseCapability accepts a capability name, case-insensitively.
func ParseCapability(s string) (Capability, error) {
	c := Capability(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range AllCapabilities {
		if c == k {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown capability %q (known: exec, store, metadata, network, filesystem)", s)
}

// Capabilities is the [capabilities] table: what a manifest requests, or what
// plugins.toml records as granted. Every capability defaults to off.
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
var FilesystemScopes = []string{"none", "project", "plugin"}

// KnownFilesystemScope reports whether scope is empty or one of
// FilesystemScopes. Any other value ("home", "/", "all") has no defined
// bound, so fledge treats it as the most privileged claim: approving it
// takes an explicit grant of filesystem, never a blanket yes.
func KnownFilesystemScope(scope string) bool {
	if scope == "" {
		return true
	}
	for _, s := range FilesystemScopes {
		if scope == s {
			return true
		}
	}
	return false
}

// Has reports whether c holds capability k.
func (c Capabilities) Has(k Capability) bool {
	switch k {
	case CapExec:
		return c.Exec
	case CapStore:
		return c.Store
	case CapMetadata:
		return c.Metadata
	case CapNetwork:
		return c.Network
	case CapFilesystem:
		return c.Filesystem != "" && c.Filesystem != "none"
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

// Only returns the subset of c named in keep. The filesystem scope is kept as
// requested when filesystem is kept.
func (c Capabilities) Only(keep map[Capability]bool) Capabilities {
	var out Capabilities
	out.Exec = c.Exec && keep[CapExec]
	out.Store = c.Store && keep[CapStore]
	out.Metadata = c.Metadata && keep[CapMetadata]
	out.Network = c.Network && keep[CapNetwork]
	if c.Has(CapFilesystem) && keep[CapFilesystem] {
		out.Filesystem = c.Filesystem
	}
	return out
}

// Intersect returns what both c and o hold. A filesystem scope survives only
// when both name the same one, so an edited manifest cannot widen it.
func (c Capabilities) Intersect(o Capabilities) Capabilities {
	out := Capabilities{
		Exec:     c.Exec && o.Exec,
		Store:    c.Store && o.Store,
		Metadata: c.Metadata && o.Metadata,
		Network:  c.Network && o.Network,
	}
	if c.Has(CapFilesystem) && c.Filesystem == o.Filesystem {
		out.Filesystem = c.Filesystem
	}
	return out
}

// Union returns what either c or o holds; o's filesystem scope wins when
// it names one.
func (c Capabilities) Union(o Capabilities) Capabilities {
	out := Capabilities{
		Exec: c.Exec || o.Exec, Store: c.Store || o.Store, Metadata: c.Metadata || o.Metadata,
		Network: c.Network || o.Network, Filesystem: c.Filesystem,
	}
	if o.Has(CapFilesystem) {
		out.Filesystem = o.Filesystem
	}
	return out
}

// Missing returns what c holds that granted does not.
func (c Capabilities) Missing(granted Capabilities) []Capability {
	var out []Capability
	for _, k := range c.List() {
		if !granted.Has(k) || (k == CapFilesystem && granted.Filesystem != c.Filesystem) {
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

package cli

import (
	"sort"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/registry"
)

// capsJSON is the capabilities object of list, install and audit output.
type capsJSON struct {
	Exec       bool   `json:"exec"`
	Store      bool   `json:"store"`
	Metadata   bool   `json:"metadata"`
	Network    bool   `json:"network"`
	Filesystem string `json:"filesystem"`
}

func toCapsJSON(c manifest.Capabilities) capsJSON {
	fs := c.Filesystem
	if fs == "" {
		fs = "none"
	}
	return capsJSON{Exec: c.Exec, Store: c.Store, Metadata: c.Metadata, Network: c.Network, Filesystem: fs}
}

// pluginJSON is one plugin in list and install output. Its field set is a
// contract (see TestJSONFieldSets).
type pluginJSON struct {
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	Source       string   `json:"source"`
	URL          string   `json:"url"`
	Kind         string   `json:"kind"`
	TrustTier    string   `json:"trust_tier"`
	Commands     []string `json:"commands"`
	Commit       string   `json:"commit"`
	PinnedRef    string   `json:"pinned_ref"`
	RefKind      string   `json:"ref_kind"`
	Installed    string   `json:"installed"`
	Protocol     string   `json:"protocol"`
	Capabilities capsJSON `json:"capabilities"`
	Hooks        []string `json:"hooks"`
	TreeHash     string   `json:"tree_hash"`
	Description  string   `json:"description"`
	// CommandDetails carries what agents need to call each command as a
	// tool: its description, typed positional args and dangerous flag.
	CommandDetails []commandJSON `json:"command_details"`
}

type commandJSON struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Args        []manifest.Arg `json:"args"`
	Dangerous   bool           `json:"dangerous"`
}

func toCommandsJSON(p *lockfile.Plugin) []commandJSON {
	out := []commandJSON{}
	for _, c := range p.CommandDetails {
		args := c.Args
		if args == nil {
			args = []manifest.Arg{}
		}
		out = append(out, commandJSON{Name: c.Name, Description: c.Description, Args: args, Dangerous: c.Dangerous})
	}
	if len(out) == 0 {
		// Records without details (e.g. from the Rust fledge): names only.
		for _, n := range p.Commands {
			out = append(out, commandJSON{Name: n, Args: []manifest.Arg{}})
		}
	}
	return out
}

func trustConfig(c *config.Config) registry.TrustConfig {
	if c == nil {
		return registry.TrustConfig{}
	}
	return registry.TrustConfig{Orgs: c.Trust.Orgs, Users: c.Trust.Users}
}

// entryTier decides an installed plugin's tier from its record. Entries the
// Rust fledge wrote have no kind or URL: a path source is local, and
// owner/repo meant github.com there.
func entryTier(p *lockfile.Plugin, t registry.TrustConfig) registry.Tier {
	if p.IsLocal() {
		return registry.TierLocal
	}
	u := p.URL
	if u == "" {
		s, err := registry.ParseSource(p.Source, "https://github.com")
		if err != nil {
			return registry.TierUnverified
		}
		if s.Kind == registry.SourceLocal {
			return registry.TierLocal
		}
		u = s.URL
	}
	return registry.TierOf(u, t)
}

func kindOf(p *lockfile.Plugin) string {
	if p.Kind != "" {
		return p.Kind
	}
	return lockfile.KindGit
}

func toPluginJSON(p *lockfile.Plugin, t registry.TrustConfig) pluginJSON {
	hooks := make([]string, 0, len(p.Hooks))
	for h := range p.Hooks {
		hooks = append(hooks, h)
	}
	sort.Strings(hooks)
	cmds := p.Commands
	if cmds == nil {
		cmds = []string{}
	}
	return pluginJSON{
		Name: p.Name, Version: p.Version, Source: p.Source, URL: p.URL, Kind: kindOf(p),
		TrustTier: string(entryTier(p, t)), Commands: cmds, Commit: p.Commit,
		PinnedRef: p.PinnedRef, RefKind: p.RefKind, Installed: p.Installed, Protocol: p.Protocol,
		Capabilities: toCapsJSON(p.Capabilities), Hooks: hooks, TreeHash: p.TreeHash,
		Description: p.Description, CommandDetails: toCommandsJSON(p),
	}
}

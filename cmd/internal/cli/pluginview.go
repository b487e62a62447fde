package cli

import (
	"sort"
	"time"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/settings"
)

// capsJSON is the capabilities object of list, install and audit output:
// every capability in manifest.Table's order (see Capabilities.ShownJSON).
type capsJSON struct{ caps manifest.Capabilities }

func toCapsJSON(c manifest.Capabilities) capsJSON { return capsJSON{c} }

func (c capsJSON) MarshalJSON() ([]byte, error) { return c.caps.ShownJSON(), nil }

// pluginJSON is one plugin in list and install output: a superset of the
// Rust fledge's list entry (src/plugin/list.rs). Its field set is a
// contract (see TestJSONFieldSets and TestRustJSONCompat).
type pluginJSON struct {
	Name      string   `json:"name"`
	Version   string   `json:"version"`
	Source    string   `json:"source"`
	URL       string   `json:"url"`
	Kind      string   `json:"kind"`
	TrustTier string   `json:"trust_tier"`
	Commands  []string `json:"commands"`
	Commit    string   `json:"commit"`
	// PinnedRef is the ref asked for at install, null when none was (as
	// Rust's).
	PinnedRef *string `json:"pinned_ref"`
	RefKind   string  `json:"ref_kind"`
	// Installed is the install date, YYYY-MM-DD (UTC), as Rust records it;
	// InstalledAt is what plugins.toml records (an RFC 3339 time when
	// fledge installed the plugin).
	Installed   string `json:"installed"`
	InstalledAt string `json:"installed_at"`
	// Runtime is the plugin's runtime, "native" unless it is "wasm".
	Runtime  string `json:"runtime"`
	Protocol string `json:"protocol"`
	// Capabilities is what plugins.toml records as granted (Rust's).
	Capabilities capsJSON `json:"capabilities"`
	// Granted is what the plugin may do here, now: Capabilities narrowed
	// by the admin policy for its tier, as the runner enforces it (the
	// same object as Capabilities when no policy narrows it). Install
	// output has it too (where capabilities follows Rust and is null for
	// plugins that do not speak the protocol).
	Granted  capsJSON `json:"granted"`
	Hooks    []string `json:"hooks"`
	TreeHash string   `json:"tree_hash"`
	// SourceHash is the fetched tree's hash before any build (the same on
	// every machine): what a policy rule pins with @tree:.
	SourceHash string `json:"source_hash,omitempty"`
	// OCIDigest is the OCI manifest installed (an oci:// install, or a
	// source fetched through an OCI mirror) and Origin the source an
	// oci:// artifact names; both absent otherwise.
	OCIDigest string `json:"oci_digest,omitempty"`
	Origin    string `json:"origin,omitempty"`
	// Mirror is where a mirror rule had the tree fetched from.
	Mirror      string `json:"mirror,omitempty"`
	Description string `json:"description"`
	// Confinement is how the kernel confines a native plugin's own code
	// here (absent for wasm): see confinementOf.
	Confinement *confinementJSON `json:"confinement,omitempty"`
	// CommandDetails carries what agents need to call each command as a
	// tool: its description, typed positional args and dangerous flag.
	CommandDetails []commandJSON `json:"command_details"`
	// Disabled is true for a plugin fledge plugins disable turned off
	// (no entry point of it is reachable); DisabledBy says who and when.
	Disabled   bool   `json:"disabled"`
	DisabledBy string `json:"disabled_by"`
	// Revoked is the revocation list entry that revokes it (null when
	// none does): it does not install, update or run.
	Revoked *revokedJSON `json:"revoked"`
	// Seed is the read-only seed directory the plugin is installed in
	// ("" for FLEDGE_HOME; FLEDGE_SEED_DIR).
	Seed string `json:"seed"`
	// Provenance is who signed the installed revision, as verified when
	// it was fetched.
	Provenance provenanceJSON `json:"provenance"`
}

// revokedJSON is a revocation list entry in list, info and audit.
type revokedJSON struct {
	Source string `json:"source"`
	Commit string `json:"commit"`
	Reason string `json:"reason"`
	Issuer string `json:"issuer"`
	Date   string `json:"date"`
	List   string `json:"list"`
}

func toRevokedJSON(g settings.Grants) *revokedJSON {
	r := g.Revoked
	if r == nil {
		return nil
	}
	return &revokedJSON{Source: r.Source, Commit: r.Commit, Reason: r.Reason, Issuer: r.Issuer, Date: r.Date, List: r.List}
}

// provenanceJSON is a plugin's "provenance" object: exactly level,
// signer and principal (a contract others script against).
type provenanceJSON struct {
	// Level is signed-tag, signed-commit or unsigned (also for a record
	// never verified, such as a local plugin's).
	Level string `json:"level"`
	// Signer is the key's fingerprint (SHA256:… for SSH), "" when
	// unsigned.
	Signer string `json:"signer"`
	// Principal is the identity vouched for it, "" when none is.
	Principal string `json:"principal"`
}

func toProvenanceJSON(p *lockfile.Provenance) provenanceJSON {
	if !p.Signed() {
		return provenanceJSON{Level: lockfile.LevelUnsigned}
	}
	return provenanceJSON{Level: p.Level, Signer: p.Signer, Principal: p.Principal}
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

func kindOf(p *lockfile.Plugin) string { return p.KindInfo().Kind }

// toPluginJSON is p in list, info and install output, with the tier and
// effective grants g the settings decide for it.
// off says who turned kernel confinement off, if anyone (unconfinedBy).
func toPluginJSON(p *lockfile.Plugin, g settings.Grants, off string) pluginJSON {
	hooks := make([]string, 0, len(p.Hooks))
	for h := range p.Hooks {
		hooks = append(hooks, h)
	}
	sort.Strings(hooks)
	cmds := p.Commands
	if cmds == nil {
		cmds = []string{}
	}
	var c *confinementJSON
	if runtimeOf(p) != "wasm" {
		// The scope the approved manifest declared, as recorded with it.
		c = confinementOf(p.Requested.Filesystem, g, off)
	}
	return pluginJSON{
		Confinement: c,
		Name:        p.Name, Version: p.Version, Source: p.Source, URL: p.URL, Kind: kindOf(p),
		TrustTier: string(g.Tier), Commands: cmds, Commit: p.Commit,
		PinnedRef: optional(p.PinnedRef), RefKind: p.RefKind, Installed: installDate(p.Installed),
		InstalledAt: p.Installed, Runtime: runtimeOf(p), Protocol: p.Protocol,
		Capabilities: toCapsJSON(p.Capabilities), Granted: toCapsJSON(g.Capabilities), Hooks: hooks, TreeHash: p.TreeHash, SourceHash: p.SourceHash,
		OCIDigest: p.OCIDigest, Origin: p.Origin, Mirror: p.Mirror,
		Description: p.Description, CommandDetails: toCommandsJSON(p), Provenance: toProvenanceJSON(p.Provenance),
		Disabled: p.IsDisabled(), DisabledBy: p.Disabled(), Revoked: toRevokedJSON(g),
	}
}

// optional is s, or nil (JSON null) when s is empty: the Rust fledge's
// convention for an Option<String> field.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// installDate is a record's install time as the Rust fledge's YYYY-MM-DD.
// fledge records an RFC 3339 time (UTC); a Rust record already holds a
// date and passes through, as does anything else.
func installDate(recorded string) string {
	if t, err := time.Parse(time.RFC3339, recorded); err == nil {
		return t.UTC().Format(time.DateOnly)
	}
	return recorded
}

// runtimeOf is a record's runtime as Rust shows it: "native" unless set.
func runtimeOf(p *lockfile.Plugin) string {
	if p.Runtime == "" {
		return "native"
	}
	return p.Runtime
}

package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/manifest"
)

// Hints are what an agent host is told of a tool's effects (MCP's
// readOnlyHint, destructiveHint and openWorldHint), read cautiously from
// the grants the settings leave the plugin and from what fledge enforces.
type Hints struct {
	// ReadOnly: the tool changes nothing outside its plugin's own data,
	// and that is enforced: ReadOnly (no modifying grant, no hooks, the
	// protocol), never dangerous, and its own code held to it: a wasm
	// plugin in fledge's sandbox, or a native plugin that declares a
	// filesystem scope (none, project or plugin: none writes the project)
	// which the kernel enforces here (Tool.Confinement).
	ReadOnly bool
	// Enforced says ReadOnly comes from enforcement, not only the grants.
	Enforced bool
	// Destructive: it may destroy, unless it is read-only; a dangerous
	// command always.
	Destructive bool
	// OpenWorld: it may reach the network. A wasm plugin has no sockets but
	// what a network grant gives it; a native plugin's own code reaches the
	// network unless the kernel stops it: where its profile allows network
	// (granted, or undeclared, as in the Rust fledge) or confinement is not
	// enforced here, it is open.
	OpenWorld bool
}

// Hints are t's hints.
func (t *Tool) Hints() Hints {
	c := t.Confinement
	enforced := t.Runtime == manifest.RuntimeWasm || (c.Enforced && c.Scope != confine.ScopeDefault)
	ro := t.ReadOnly && !t.Dangerous && enforced
	open := t.Grants.Network
	if t.Runtime != manifest.RuntimeWasm {
		open = open || c.Network || !c.Enforced
	}
	return Hints{ReadOnly: ro, Enforced: enforced, Destructive: !ro, OpenWorld: open}
}

// Digest identifies what tools are offered: each one's Fingerprint, in
// name order. The same tools give the same digest in every run; any change
// to what an agent is told changes it. A client can pin it.
func Digest(tools []*Tool) string {
	fps := make([]string, len(tools))
	for i, t := range tools {
		fps[i] = t.Fingerprint()
	}
	return DigestOf(fps)
}

// DigestOf is Digest of the tools whose Fingerprints are fps, in order,
// for a caller that has them already.
func DigestOf(fps []string) string {
	h := sha256.New()
	for _, fp := range fps {
		h.Write([]byte(fp))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Fingerprint identifies what an agent is told of t and what a call runs:
// its name, plugin, command, recorded commit, description, schemas, hints,
// grants, hooks, tier, runtime and protocol (a hex SHA-256).
func (t *Tool) Fingerprint() string {
	type entry struct {
		Name        string                `json:"name"`
		Plugin      string                `json:"plugin"`
		Command     string                `json:"command"`
		Commit      string                `json:"commit"`
		Description string                `json:"description"`
		InputSchema json.RawMessage       `json:"input_schema"`
		JSONOutput  bool                  `json:"json_output"`
		Output      *jsonschema.Schema    `json:"output_schema"`
		Dangerous   bool                  `json:"dangerous"`
		Hints       Hints                 `json:"hints"`
		Grants      manifest.Capabilities `json:"grants"`
		Hooks       []string              `json:"hooks"`
		Tier        string                `json:"tier"`
		Runtime     string                `json:"runtime"`
		Protocol    string                `json:"protocol"`
	}
	b, _ := json.Marshal(entry{t.Name, t.Plugin, t.Command, t.Commit, t.Description, t.SchemaJSON(), t.JSONOutput, t.OutputSchema, t.Dangerous, t.Hints(),
		t.Grants, t.Hooks, string(t.Tier), t.Runtime, t.Protocol})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// SchemaJSON is InputSchema as JSON, encoded once (the schema package's
// encoder walks every field by reflection, and a server lists each tool
// many times).
func (t *Tool) SchemaJSON() json.RawMessage {
	if t.schemaJSON == nil {
		b, _ := json.Marshal(t.InputSchema)
		return b
	}
	return t.schemaJSON
}

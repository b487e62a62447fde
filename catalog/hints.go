package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/corvidlabs/fledge-go/manifest"
)

// Hints are what an agent host is told of a tool's effects (MCP's
// readOnlyHint, destructiveHint and openWorldHint), read cautiously from
// the grants the settings leave the plugin and from what fledge enforces.
type Hints struct {
	// ReadOnly: the tool changes nothing outside its plugin's own data,
	// and that is enforced: ReadOnly (no modifying grant, no hooks, the
	// protocol) and a wasm plugin in fledge's sandbox, never dangerous. A
	// native plugin's own writes are not confined yet; once the kernel
	// confines native plugins (issue 23), this will hold wherever that
	// confinement enforces it.
	ReadOnly bool
	// Enforced says ReadOnly comes from enforcement, not only the grants.
	Enforced bool
	// Destructive: it may destroy, unless it is read-only; a dangerous
	// command always.
	Destructive bool
	// OpenWorld: it may reach the network (network is granted).
	OpenWorld bool
}

// Hints are t's hints.
func (t *Tool) Hints() Hints {
	enforced := t.Runtime == manifest.RuntimeWasm
	ro := t.ReadOnly && !t.Dangerous && enforced
	return Hints{ReadOnly: ro, Enforced: enforced, Destructive: !ro, OpenWorld: t.Grants.Network}
}

// Digest identifies what tools are offered: each one's name, plugin,
// command, recorded commit, description, schemas, hints, grants, tier,
// runtime and protocol, in name order. The same tools give the same
// digest in every run; any change to what an agent is told changes it.
// A client can pin it.
func Digest(tools []*Tool) string {
	type entry struct {
		Name        string                `json:"name"`
		Plugin      string                `json:"plugin"`
		Command     string                `json:"command"`
		Commit      string                `json:"commit"`
		Description string                `json:"description"`
		InputSchema *jsonschema.Schema    `json:"input_schema"`
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
	entries := make([]entry, len(tools))
	for i, t := range tools {
		entries[i] = entry{t.Name, t.Plugin, t.Command, t.Commit, t.Description, t.InputSchema, t.JSONOutput, t.OutputSchema, t.Dangerous, t.Hints(),
			t.Grants, t.Hooks, string(t.Tier), t.Runtime, t.Protocol}
	}
	b, _ := json.Marshal(entries)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

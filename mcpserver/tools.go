package mcpserver

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/catalog"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// _meta keys fledge sets on tools, and reads on calls.
const (
	MetaPlugin   = "fledge/plugin"
	MetaCommand  = "fledge/command"
	MetaTier     = "fledge/trust_tier"
	MetaRuntime  = "fledge/runtime"
	MetaProtocol = "fledge/protocol"
	MetaGrants   = "fledge/grants"
	MetaHooks    = "fledge/hooks"
	// MetaCatalogDigest, in the initialize and tools/list results' _meta,
	// is catalog.Digest of the tools offered, for a client to pin.
	MetaCatalogDigest = "fledge/catalog_digest"
	// MetaTimeout, in a call's _meta, asks for a shorter timeout than the
	// server's: seconds (a number) or a Go duration ("30s").
	MetaTimeout = "fledge/timeout"
	// MetaExitCode and MetaErrorCode, in a result's _meta, are the
	// plugin's exit code (absent when it never started) and the run's
	// error code (absent on success).
	MetaExitCode  = "fledge/exit_code"
	MetaErrorCode = "fledge/error_code"
)

// toMCPTool is a catalog tool as MCP lists it, with the catalog's hints.
func toMCPTool(t *catalog.Tool) *mcp.Tool {
	h := t.Hints()
	ann := &mcp.ToolAnnotations{
		Title:           fmt.Sprintf("%s (%s)", t.Command, lockfile.ShortName(t.Plugin)),
		ReadOnlyHint:    h.ReadOnly,
		DestructiveHint: &h.Destructive,
		OpenWorldHint:   &h.OpenWorld,
	}
	return &mcp.Tool{
		Name:        t.Name,
		Title:       ann.Title,
		Description: t.Description,
		// Encoded once: the SDK encodes every listing anew.
		InputSchema: t.SchemaJSON(),
		Annotations: ann,
		// nil unless declared: the field is then left out.
		OutputSchema: outputSchema(t),
		Meta: mcp.Meta{
			MetaPlugin:   t.Plugin,
			MetaCommand:  t.Command,
			MetaTier:     string(t.Tier),
			MetaRuntime:  t.Runtime,
			MetaProtocol: t.Protocol,
			MetaGrants:   grants(t.Grants),
			MetaHooks:    t.Hooks,
		},
	}
}

// outputSchema is t's declared output schema, or nil (an untyped nil: a
// typed one would be listed as null).
func outputSchema(t *catalog.Tool) any {
	if t.OutputSchema == nil {
		return nil
	}
	return t.OutputSchema
}

// grants is the capabilities object of list --json.
func grants(c manifest.Capabilities) map[string]any {
	out := make(map[string]any, len(manifest.AllCapabilities))
	for _, k := range manifest.AllCapabilities {
		out[string(k)] = c.Shown(k)
	}
	return out
}

// fingerprint identifies what a tool is registered as: the listing and
// what a call runs, all derived from what the catalog's fingerprint
// covers. A reload re-registers only what changed.
func fingerprint(t *catalog.Tool) string { return t.Fingerprint() }

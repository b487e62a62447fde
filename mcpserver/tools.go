package mcpserver

import (
	"encoding/json"
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
	// MetaTimeout, in a call's _meta, asks for a shorter timeout than the
	// server's: seconds (a number) or a Go duration ("30s").
	MetaTimeout = "fledge/timeout"
	// MetaExitCode and MetaErrorCode, in a result's _meta, are the
	// plugin's exit code (absent when it never started) and the run's
	// error code (absent on success).
	MetaExitCode  = "fledge/exit_code"
	MetaErrorCode = "fledge/error_code"
)

// toMCPTool is a catalog tool as MCP lists it.
func toMCPTool(t *catalog.Tool) *mcp.Tool {
	destructive := t.Dangerous
	ann := &mcp.ToolAnnotations{
		Title:        fmt.Sprintf("%s (%s)", t.Command, lockfile.ShortName(t.Plugin)),
		ReadOnlyHint: t.ReadOnly,
		// The plugin's author says whether the command destroys anything;
		// a read-only tool makes the hint moot.
		DestructiveHint: &destructive,
	}
	return &mcp.Tool{
		Name:        t.Name,
		Title:       ann.Title,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: ann,
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

// grants is the capabilities object of list --json.
func grants(c manifest.Capabilities) map[string]any {
	out := make(map[string]any, len(manifest.AllCapabilities))
	for _, k := range manifest.AllCapabilities {
		out[string(k)] = c.Shown(k)
	}
	return out
}

// fingerprint identifies what a tool is registered as: the listing and
// what a call runs. A reload re-registers only what changed.
func fingerprint(mt *mcp.Tool, t *catalog.Tool) string {
	b, _ := json.Marshal(struct {
		Tool      *mcp.Tool
		Args      []manifest.Arg
		Dangerous bool
	}{mt, t.Args, t.Dangerous})
	return string(b)
}

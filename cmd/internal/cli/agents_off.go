//go:build fledge_nomcp

package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// A build with the fledge_nomcp tag leaves out the agent commands and the
// MCP SDK and JSON Schema code they link: the start-up benchmark compares
// it with the full binary, to measure what they cost every other command.

var errNoMCP = errors.New("this fledge was built without the agent commands (tag fledge_nomcp)")

func newMCPCmd(*Factory) *cobra.Command {
	return &cobra.Command{Use: "mcp", Hidden: true, RunE: func(*cobra.Command, []string) error { return errNoMCP }}
}

func newToolsCmd(*Factory) *cobra.Command {
	return &cobra.Command{Use: "tools", Hidden: true, RunE: func(*cobra.Command, []string) error { return errNoMCP }}
}

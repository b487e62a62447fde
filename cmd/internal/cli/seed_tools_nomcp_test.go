//go:build fledge_nomcp

package cli

import "testing"

// seededTools: without MCP there is no tools command to check.
func seededTools(*testing.T, *e2eFixture) {}

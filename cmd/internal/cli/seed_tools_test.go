//go:build !fledge_nomcp

package cli

import (
	"encoding/json"
	"testing"
)

// seededTools checks that tools --json offers the seeded command x (the
// tools command is not built without MCP).
func seededTools(t *testing.T, f *e2eFixture) {
	t.Helper()
	var tools toolsDoc
	if _, out, _ := f.fledge("plugins", "tools", "--json"); json.Unmarshal([]byte(out), &tools) != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "x" {
		t.Errorf("tools --json does not offer the seeded command: %s", out)
	}
}

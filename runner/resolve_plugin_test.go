package runner

import (
	"path/filepath"
	"testing"
)

// TestRequestPlugin: when two plugins record the same command (a
// plugins.toml fledge did not write), Request.Plugin picks whose runs; a
// plugin that does not record the command runs nothing.
func TestRequestPlugin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-a", "dup", allGrants)
	e.installGo("fledge-plugin-b", "dup", allGrants)
	e.installGo("fledge-plugin-c", "other", allGrants)
	for _, want := range []string{"", "fledge-plugin-a", "fledge-plugin-b"} {
		res, err := e.run(Request{Command: "dup", Plugin: want, Args: []string{"echo"}, Capture: true})
		if err != nil {
			t.Fatalf("%q: %v", want, err)
		}
		owner := want
		if owner == "" {
			owner = "fledge-plugin-a" // the first record that has it
		}
		echo := decodeEcho(t, res.Output)
		if res.Plugin != owner || filepath.Base(echo["plugin_dir"].(string)) != owner {
			t.Errorf("Plugin %q ran %s (%v)", want, res.Plugin, echo["plugin_dir"])
		}
	}
	for _, p := range []string{"fledge-plugin-c", "fledge-plugin-none"} {
		res, err := e.run(Request{Command: "dup", Plugin: p, Args: []string{"echo"}, Capture: true})
		if CodeOf(err) != CodeUnknownCommand || res.Started {
			t.Errorf("Plugin %q: started %v, err %v", p, res.Started, err)
		}
	}
}

package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/mcpserver"
	"github.com/corvidlabs/fledge-go/settings"
)

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name)
	}
	return out
}

// TestToolsOffered: --tools and the policy's [tools] rules decide what is
// offered; the policy beats --tools, and a tool not offered is neither
// listed nor callable.
func TestToolsOffered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-alpha", commands: []command{{name: "one", binary: "bin/run"}, {name: "two", binary: "bin/run"}},
		files: map[string]string{"bin/run": "#!/bin/sh\necho ran\n"}})
	e.install(plugin{name: "fledge-plugin-beta", commands: []command{{name: "three", binary: "bin/run"}},
		files: map[string]string{"bin/run": "#!/bin/sh\necho ran\n"}})
	system := filepath.Join(e.root, "policy.toml")

	for _, tc := range []struct {
		name   string
		tools  []string
		policy string
		want   []string
	}{
		{"everything", nil, "", []string{"one", "three", "two"}},
		{"a plugin's commands", []string{"alpha.*"}, "", []string{"one", "two"}},
		{"by full plugin name and tool name", []string{"fledge-plugin-beta.three", "two"}, "", []string{"three", "two"}},
		{"policy deny", nil, "[tools]\ndeny = [\"alpha.two\"]\n", []string{"one", "three"}},
		{"policy allow", nil, "[tools]\nallow = [\"t*\"]\n", []string{"three", "two"}},
		{"the policy beats --tools", []string{"alpha.*"}, "[tools]\ndeny = [\"two\"]\n", []string{"one"}},
		{"--tools cannot widen the policy", []string{"three"}, "[tools]\nallow = [\"one\"]\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(system, []byte(tc.policy), 0o644); err != nil {
				t.Fatal(err)
			}
			cs := connect(t, e.server(func(o *mcpserver.Options) {
				o.Settings = settings.Inputs{SystemPolicy: system}
				o.Tools = tc.tools
			}), nil)
			if got := toolNames(t, cs); !slices.Equal(got, tc.want) {
				t.Errorf("tools %v, want %v", got, tc.want)
			}
			for _, name := range []string{"one", "two", "three"} {
				if slices.Contains(tc.want, name) {
					continue
				}
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}); err == nil {
					t.Errorf("a call to %s, not offered, was not refused as an unknown tool", name)
				}
			}
		})
	}
	e.log.Reset()
	e.server(func(o *mcpserver.Options) { o.Tools = []string{"alpha.*", "gamma.*"} })
	if log := e.log.String(); !strings.Contains(log, "--tools gamma.* matches no tool") || strings.Contains(log, "alpha") {
		t.Errorf("the log does not note the pattern that matches nothing:\n%s", log)
	}
	if _, err := mcpserver.New(mcpserver.Options{Paths: e.paths, Tools: []string{"[bad"}}); err == nil {
		t.Error("a bad --tools pattern was taken")
	}
}

package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/mcpserver"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/settings"
)

var allGrants = manifest.Capabilities{Exec: true, Store: true, Metadata: true}

// driverScript is the runner's scripted plugin: it sends the lines of
// script.txt in its directory, waiting for an answer after each "?" line
// and appending it to responses.log.
var driverScript = filepath.Join("..", "runner", "testdata", "plugins", "driver.sh")

// shArgs is a fledge-v1 plugin in plain sh that outputs its argv, one
// numbered line each.
const shArgs = `#!/bin/sh
IFS= read -r init
n=0
for a in "$@"; do
  n=$((n+1))
  printf '{"type":"output","text":"%d=%s\\n"}\n' "$n" "$a"
done
`

// TestListTools: the catalog as MCP lists it: typed schema in argv order,
// annotations (title, read-only, destructive) and fledge's _meta; the
// session speaks a version with the initialize handshake.
func TestListTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "gocmd", manifest.Capabilities{Store: true},
		manifest.Arg{Name: "mode", Type: "string", Required: true, Description: "what to do"},
		manifest.Arg{Name: "n", Type: "integer"})
	e.install(plugin{name: "fledge-plugin-danger", protocol: manifest.ProtocolV1, grants: allGrants,
		commands: []command{{name: "wipe", binary: "bin/run", dangerous: true, description: "wipes things"}},
		files:    map[string]string{"bin/run": shArgs}})
	cs := connect(t, e.server(nil), nil)
	if v := cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
		t.Errorf("negotiated %s, which forbids asking during a call", v)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	if len(byName) != 2 {
		t.Fatalf("tools %v", byName)
	}
	g := byName["gocmd"]
	schema, _ := json.Marshal(g.InputSchema)
	if want := `{"additionalProperties":false,"properties":{"mode":{"description":"what to do","type":"string"},"n":{"type":"integer"}},"required":["mode"],"type":"object"}`; string(schema) != want {
		t.Errorf("schema %s, want %s", schema, want)
	}
	// A native plugin's writes are not confined: it is not read-only, so
	// it may destroy; without network it stays in its closed world.
	if a := g.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint ||
		a.OpenWorldHint == nil || *a.OpenWorldHint || a.Title != "gocmd (go)" {
		t.Errorf("gocmd annotations %+v", a)
	}
	if g.Meta[mcpserver.MetaPlugin] != "fledge-plugin-go" || g.Meta[mcpserver.MetaTier] != "local" || g.Meta[mcpserver.MetaRuntime] != "native" {
		t.Errorf("gocmd _meta %v", g.Meta)
	}
	if grants, _ := g.Meta[mcpserver.MetaGrants].(map[string]any); grants["store"] != true || grants["exec"] != false {
		t.Errorf("gocmd grants %v", g.Meta[mcpserver.MetaGrants])
	}
	w := byName["wipe"]
	if a := w.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("wipe annotations %+v", a)
	}
	if w.Description != "wipes things" {
		t.Errorf("wipe description %q", w.Description)
	}
}

// TestCallPlugins calls a shell, a Python and a Go plugin: typed arguments
// become argv in declaration order, stringified, with the place of an
// optional one left out held; the output texts are the result.
func TestCallPlugins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-sh", protocol: manifest.ProtocolV1,
		commands: []command{{name: "shargs", binary: "bin/run", args: []manifest.Arg{
			{Name: "target", Type: "string", Required: true}, {Name: "count", Type: "integer"},
			{Name: "ratio", Type: "number"}, {Name: "force", Type: "boolean"}}}},
		files: map[string]string{"bin/run": shArgs}})
	e.installGo("fledge-plugin-go", "gocmd", manifest.Capabilities{})
	cs := connect(t, e.server(nil), nil)

	res := call(t, cs, "shargs", map[string]any{"force": true, "target": "a b", "count": 3}, nil)
	if res.IsError || text(res) != "1=a b\n2=3\n3=\n4=true\n" {
		t.Errorf("shargs: %v %q", res.IsError, text(res))
	}
	if res.Meta[mcpserver.MetaExitCode] != float64(0) {
		t.Errorf("exit code _meta %v", res.Meta)
	}

	res = call(t, cs, "gocmd", map[string]any{"args": []string{"echo", "x y", "--flag"}}, nil)
	var echo struct {
		Argv []string `json:"argv"`
		NI   string   `json:"ni"`
	}
	if res.IsError || json.Unmarshal([]byte(text(res)), &echo) != nil || !slices.Equal(echo.Argv, []string{"echo", "x y", "--flag"}) {
		t.Errorf("gocmd: %v %s", res.IsError, text(res))
	}
	if echo.NI != "1" {
		t.Errorf("a client without elicitation: the plugin should see FLEDGE_NON_INTERACTIVE=1, got %q", echo.NI)
	}

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: the Python plugin part needs it (CI installs it)")
	}
	e.installScript("fledge-plugin-deploy", "deploy", "deploy.py", manifest.Capabilities{Store: true})
	testutil.Eventually(t, "the deploy tool", func() bool {
		r, err := cs.ListTools(context.Background(), nil)
		return err == nil && len(r.Tools) == 3
	})
	res = call(t, cs, "deploy", map[string]any{"args": []string{"--dry-run"}}, nil)
	if want := "Deployed to staging (args [\"--dry-run\"])\n"; res.IsError || text(res) != want {
		t.Errorf("deploy: %v %q, want %q", res.IsError, text(res), want)
	}
}

// TestGrantsEnforced: a call runs with exactly the recorded grants: denied
// exec answers 126 inside the plugin; a plugin that then fails is
// capability_not_allowed, with the hint the command layer gives.
func TestGrantsEnforced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-noexec", "noexec", manifest.Capabilities{Store: true})
	e.installGo("fledge-plugin-exec", "withexec", allGrants)
	e.install(plugin{name: "fledge-plugin-needs", protocol: manifest.ProtocolV1, grants: manifest.Capabilities{Store: true},
		commands: []command{{name: "needs", binary: "bin/driver.sh"}},
		copies:   map[string]string{"bin/driver.sh": driverScript},
		files: map[string]string{"script.txt": `?{"type":"exec","id":"1","command":"echo hi"}` + "\n" +
			`{"type":"output","text":"tried\n"}` + "\nexit 3\n"}})
	cs := connect(t, e.server(func(o *mcpserver.Options) {
		o.Hint = func(res *runner.Result, err error) string {
			return "grant it: fledge plugins grant " + res.Plugin + " exec"
		}
	}), nil)

	res := call(t, cs, "noexec", map[string]any{"args": []string{"exec", "echo", "hi"}}, nil)
	if res.IsError || !strings.Contains(text(res), `"code":126`) {
		t.Errorf("denied exec: %v %s", res.IsError, text(res))
	}
	res = call(t, cs, "withexec", map[string]any{"args": []string{"exec", "echo", "hi"}}, nil)
	if res.IsError || !strings.Contains(text(res), `"code":0`) || !strings.Contains(text(res), `hi\n`) {
		t.Errorf("granted exec: %v %s", res.IsError, text(res))
	}
	// A plugin that fails after a denial: the run's error says why.
	res = call(t, cs, "needs", nil, nil)
	if !res.IsError || errorCode(res) != runner.CodeCapabilityNotAllowed || res.Meta[mcpserver.MetaExitCode] != float64(3) ||
		!strings.HasPrefix(text(res), "tried\n") ||
		!strings.Contains(text(res), "grant it: fledge plugins grant fledge-plugin-needs exec") {
		t.Errorf("needs without exec: %v %s %v %q", res.IsError, errorCode(res), res.Meta, text(res))
	}
}

// TestMalformedArguments: arguments that do not match the schema are a
// tool error naming the problem, and nothing runs.
func TestMalformedArguments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.install(plugin{name: "fledge-plugin-mark", protocol: manifest.ProtocolV1,
		commands: []command{{name: "mark", binary: "bin/run", args: []manifest.Arg{{Name: "n", Type: "integer", Required: true}}}},
		files:    map[string]string{"bin/run": "#!/bin/sh\ntouch \"$FLEDGE_PLUGIN_DIR/ran\"\n"}})
	cs := connect(t, e.server(nil), nil)
	for _, args := range []any{
		map[string]any{},
		map[string]any{"n": "3"},
		map[string]any{"n": 1.5},
		map[string]any{"n": 1, "m": 2},
		json.RawMessage(`[1]`),
	} {
		res := call(t, cs, "mark", args, nil)
		if !res.IsError || errorCode(res) != mcpserver.CodeInvalidArguments || !strings.Contains(text(res), "arguments for tool mark") {
			t.Errorf("%v: %v %s %q", args, res.IsError, errorCode(res), text(res))
		}
	}
	for _, meta := range []mcp.Meta{{mcpserver.MetaTimeout: "soon"}, {mcpserver.MetaTimeout: -1.0}} {
		res := call(t, cs, "mark", map[string]any{"n": 1}, meta)
		if !res.IsError || errorCode(res) != mcpserver.CodeInvalidArguments {
			t.Errorf("_meta %v: %v %q", meta, res.IsError, text(res))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !os.IsNotExist(err) {
		t.Error("the plugin ran for a refused call")
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nosuch"}); err == nil {
		t.Error("an unknown tool should be a protocol error")
	}
}

// TestPolicyReadPerCall: the admin policy is read afresh for every call, so
// one tightened while the server runs denies a recorded grant at the next
// call (and the tool list, watching the policy's file, shows the grants it
// leaves), and one that cannot be read runs nothing.
func TestPolicyReadPerCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-exec", "withexec", allGrants)
	system := filepath.Join(e.root, "policy.toml")
	cs := connect(t, e.server(func(o *mcpserver.Options) {
		o.Settings = settings.Inputs{SystemPolicy: system}
	}), nil)
	args := map[string]any{"args": []string{"exec", "echo", "hi"}}
	if res := call(t, cs, "withexec", args, nil); res.IsError || !strings.Contains(text(res), `"code":0`) {
		t.Fatalf("exec without a policy: %v %s", res.IsError, text(res))
	}
	if err := os.WriteFile(system, []byte("[capabilities]\nlocal = [\"store\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := call(t, cs, "withexec", args, nil); res.IsError || !strings.Contains(text(res), `"code":126`) {
		t.Errorf("exec under a policy tightened while serving: %v %s", res.IsError, text(res))
	}
	testutil.Eventually(t, "tools/list to show the grants the policy leaves", func() bool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(res.Tools) != 1 {
			t.Fatalf("tools/list: %v %+v", err, res)
		}
		g, _ := res.Tools[0].Meta[mcpserver.MetaGrants].(map[string]any)
		return g["exec"] == false && g["store"] == true
	})
	if err := os.WriteFile(system, []byte("[capabilities\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := call(t, cs, "withexec", args, nil); !res.IsError || errorCode(res) != mcpserver.CodePolicyDenied {
		t.Errorf("a policy that cannot be read: %v %s %s", res.IsError, errorCode(res), text(res))
	}
}

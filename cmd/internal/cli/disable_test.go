//go:build unix

package cli_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// A disabled plugin has no reachable entry point: fledge <command>,
// plugins run, the link in FLEDGE_HOME/bin, completion, help's command
// list, the tool catalog, an MCP tools/list and tools/call, update,
// reinstall and its post_remove hook all find nothing to start; its
// binary and hooks leave a mark whenever they run, and none is left.
// enable brings every one back.
func TestDisabledPluginHasNoEntryPoint(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	mark := func(what string) string {
		return "#!/bin/sh\necho ran >> \"$WORK/ran-" + what + "\"\necho " + what + "\n"
	}
	files := map[string]string{
		"plugin.toml": `[plugin]
name = "fledge-plugin-off"
version = "1.0.0"

[[commands]]
name = "off"
binary = "bin/off"

[hooks]
post_install = "sh hook.sh install"
post_remove = "sh hook.sh remove"
`,
		"bin/off": mark("off"),
		"hook.sh": "echo ran >> \"$WORK/ran-hook-$1\"\n",
	}
	e.repo("fledge-plugin-off", files)
	e.local("on", hPlugin("fledge-plugin-on", "1.0.0", ""))
	e.ok("plugins", "install", "o/fledge-plugin-off", "--yes", "--grant", "hooks")
	e.ok("plugins", "install", "./on", "--copy", "--yes")
	ran := func(what string) bool {
		_, err := os.Stat(filepath.Join(e.work, "ran-"+what))
		return err == nil
	}
	forget := func() {
		for _, w := range []string{"off", "hook-install", "hook-remove"} {
			os.Remove(filepath.Join(e.work, "ran-"+w))
		}
	}
	link := filepath.Join(e.fh, "bin", "fledge-off")
	if !ran("hook-install") || !strings.Contains(string(e.ok("off").out), "off") || !ran("off") {
		t.Fatal("the plugin or its post_install hook did not run before it was disabled")
	}
	if _, err := os.Lstat(link); err != nil {
		t.Fatalf("no command link before disabling: %v", err)
	}
	forget()

	doc := hJSON(t, e.ok("plugins", "disable", "off", "--json"))
	if hGet(doc, "changed") != true || !strings.Contains(hStr(doc, "disabled"), "fledge plugins disable") {
		t.Fatalf("disable --json: %v", doc)
	}
	if again := hJSON(t, e.ok("plugins", "disable", "off", "--json")); hGet(again, "changed") != false {
		t.Errorf("a second disable changed something: %v", again)
	}
	env := map[string]string{}
	for _, kv := range e.environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}

	// Every entry point, each asserting something that a reachable one
	// would break.
	if r := e.run("off"); r.code == 0 || !strings.Contains(string(r.err), "disabled") || !strings.Contains(string(r.err), "fledge plugins enable fledge-plugin-off") {
		t.Errorf("fledge off: want a refusal naming enable\n%v", r)
	}
	d := e.fail("plugin_disabled", "plugins", "run", "off")
	if !strings.Contains(hStr(d, "error", "message"), "is disabled (by ") {
		t.Errorf("plugins run: %v", d)
	}
	if _, err := os.Lstat(link); err == nil {
		t.Errorf("%s still links to the disabled plugin's binary", link)
	}
	if out := string(e.ok("__complete", "").out); strings.Contains(out, "off\t") || strings.Contains(out, "\noff\n") || !strings.Contains(out, "on") {
		t.Errorf("completion offers the disabled command (or not the enabled one):\n%s", out)
	}
	if out := string(e.ok("help").out); strings.Contains(out, " off ") || !strings.Contains(out, " on ") {
		t.Errorf("help lists the disabled command (or not the enabled one):\n%s", out)
	}
	tools := hJSON(t, e.ok("plugins", "tools", "--json"))
	if hByName(tools, "off", "tools") != nil || hByName(tools, "on", "tools") == nil {
		t.Errorf("tools --json offers the disabled command (or not the enabled one): %v", hGet(tools, "tools"))
	}
	if sk := hStrings(tools, "skipped", 0, "reason"); len(sk) == 0 && !strings.Contains(hStr(tools, "skipped", 0, "reason"), "disabled") {
		t.Errorf("tools --json does not say why off is not a tool: %v", hGet(tools, "skipped"))
	}
	names, callErr := mcpCall(t, env, "off")
	if slices.Contains(names, "off") || !slices.Contains(names, "on") {
		t.Errorf("MCP tools/list: %v", names)
	}
	if callErr == "" {
		t.Errorf("MCP tools/call off was not refused")
	}
	if r := e.run("plugins", "update", "off", "--json"); r.code != 1 || hStr(hJSON(t, r), "results", 0, "error", "code") != "plugin_disabled" {
		t.Errorf("update: want exit 1 with plugin_disabled\n%v", r)
	}
	if d := e.fail("plugin_disabled", "plugins", "install", "o/fledge-plugin-off", "--force", "--yes"); !strings.Contains(hJSONString(d), "enable") {
		t.Errorf("install --force: %v", d)
	}
	if ran("off") || ran("hook-install") {
		t.Fatal("the disabled plugin's binary or hook ran")
	}
	list := hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-off", "plugins")
	audit := hByName(hJSON(t, e.ok("plugins", "audit", "--json")), "fledge-plugin-off", "audit")
	info := hGet(hJSON(t, e.ok("plugins", "info", "off", "--json")), "plugin")
	for what, v := range map[string]any{"list": list, "audit": audit, "info": info} {
		if hGet(v, "disabled") != true || !strings.Contains(hStr(v, "disabled_by"), " at ") {
			t.Errorf("%s: disabled %v by %q", what, hGet(v, "disabled"), hStr(v, "disabled_by"))
		}
	}
	if hGet(hByName(hJSON(t, e.ok("plugins", "list", "--json")), "fledge-plugin-on", "plugins"), "disabled") != false {
		t.Error("list: the other plugin is disabled too")
	}
	var actions []string
	for _, r := range e.logRecords() {
		actions = append(actions, hStr(r, "action")+" "+hStr(r, "plugin"))
	}
	if got := strings.Join(actions, ", "); !strings.HasSuffix(got, "disable fledge-plugin-off") {
		t.Errorf("grant log actions: %s", got)
	}
	if v, code := e.verifyLog(); code != 0 {
		t.Errorf("the grant log does not verify after disable: %v", v)
	}

	e.ok("plugins", "enable", "off")
	if !strings.Contains(string(e.ok("off").out), "off") || !ran("off") {
		t.Error("enabled again, the command does not run")
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("enabled again, the command link is not back: %v", err)
	}
	if names, callErr := mcpCall(t, env, "off"); !slices.Contains(names, "off") || callErr != "" {
		t.Errorf("enabled again, MCP: tools %v, call error %q", names, callErr)
	}

	// The event trail has each run: the refused ones as denied, the MCP
	// call with its client.
	evs := hJSON(t, e.ok("plugins", "audit", "--events", "--plugin", "off", "--json"))
	var denied, mcpOK, userOK, mcpRefused bool
	for _, ev := range hGet(evs, "events").([]any) {
		switch {
		case hStr(ev, "outcome") == "denied" && hStr(ev, "code") == "plugin_disabled" && hStr(ev, "denials", 0, "item") == "disabled" && hStr(ev, "actor", "kind") == "user":
			denied = true
		case hStr(ev, "kind") == "tool_call" && hStr(ev, "outcome") == "ok" && hStr(ev, "actor", "client") == "disable-test" && hStr(ev, "actor", "client_version") == "1":
			mcpOK = true
		case hStr(ev, "kind") == "run" && hStr(ev, "outcome") == "ok" && hGet(ev, "exit_code") != nil && len(hStr(ev, "commit")) == 40:
			userOK = true
		case hStr(ev, "kind") == "tool_call" && hStr(ev, "outcome") == "denied" && hStr(ev, "code") == "invalid_arguments" && hStr(ev, "actor", "client") == "disable-test":
			mcpRefused = true
		}
		if hStr(ev, "plugin") != "fledge-plugin-off" {
			t.Errorf("--plugin off shows another plugin's event: %v", ev)
		}
	}
	if !denied || !mcpOK || !userOK || !mcpRefused {
		t.Errorf("event trail: denied %v, MCP call %v, user run %v, MCP call refused %v:\n%s", denied, mcpOK, userOK, mcpRefused, hJSONString(evs))
	}
	if r := e.ok("plugins", "audit", "--events", "--since", "1h"); !strings.Contains(string(r.out), "plugin_disabled") {
		t.Errorf("audit --events:\n%s", r.out)
	}

	e.ok("plugins", "disable", "off")
	forget()
	r := e.ok("plugins", "remove", "off")
	if ran("hook-remove") || !strings.Contains(string(r.err), "post_remove hook is not run: it is disabled") {
		t.Errorf("removing a disabled plugin ran its post_remove hook, or did not say so:\n%v", r)
	}
	e.absent("fledge-plugin-off", "off")
}

// mcpCall serves fledge mcp in process and returns the names tools/list
// offers and the error text of calling tool ("" when it ran).
func mcpCall(t *testing.T, env map[string]string, tool string) (names []string, callErr string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		s := &cli.IOStreams{In: inR, Out: outW, ErrOut: &stderr, Getenv: func(k string) string { return env[k] }}
		code := cli.Main([]string{"mcp"}, s, "test")
		outW.Close()
		done <- code
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "disable-test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect to fledge mcp: %v\n%s", err, stderr.String())
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v\n%s", err, stderr.String())
	}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	switch {
	case err != nil:
		callErr = err.Error()
	case r.IsError:
		callErr = "tool error"
		if len(r.Content) > 0 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				callErr = tc.Text
			}
		}
	}
	// A call with arguments the schema refuses never reaches the runner;
	// the event trail has it all the same.
	cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"args": 5}})
	cs.Close()
	inW.Close()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("fledge mcp did not end when its stdin closed")
	}
	return names, callErr
}

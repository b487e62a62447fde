package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/mcpserver"
	"github.com/corvidlabs/fledge-go/runner"
)

// waiter is a fledge-v1 plugin that says it started, then records every
// line fledge sends it until a cancel, on which it exits 130. It ignores
// SIGINT and SIGTERM, which follow the cancel on a schedule: however late
// a busy machine runs it, it records the cancel before it stops (only
// SIGKILL, seconds later, could stop it first).
const waiter = `#!/bin/sh
trap '' INT TERM
IFS= read -r init
touch "$FLEDGE_PLUGIN_DIR/started"
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$FLEDGE_PLUGIN_DIR/got.log"
  case "$line" in *'"cancel"'*) exit 130 ;; esac
done
`

func (e *env) installWaiter(name, cmd string) string {
	return e.install(plugin{name: name, protocol: manifest.ProtocolV1,
		commands: []command{{name: cmd, binary: "bin/run"}}, files: map[string]string{"bin/run": waiter}})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestCancellation: cancelling a call (notifications/cancelled) is Ctrl+C
// for its plugin: it gets the protocol's cancel, reason user_interrupt.
func TestCancellation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.installWaiter("fledge-plugin-wait", "wait")
	// No signal can overtake the waiter's own exit on the cancel.
	cs := connect(t, e.server(func(o *mcpserver.Options) { o.Runner.Timeouts = patientTimeouts }), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		done <- err
	}()
	testutil.Eventually(t, "the plugin to start", func() bool { return exists(filepath.Join(dir, "started")) })
	cancel()
	if err := testutil.Receive(t, "the cancelled call to return", done); err == nil {
		t.Error("a cancelled call returned a result")
	}
	testutil.Eventually(t, "the plugin's cancel", func() bool {
		data, _ := os.ReadFile(filepath.Join(dir, "got.log"))
		return strings.Contains(string(data), `"reason":"user_interrupt"`)
	})
	// The session goes on.
	res := call(t, cs, "wait", nil, mcp.Meta{mcpserver.MetaTimeout: 0.2})
	if errorCode(res) != runner.CodeTimeout {
		t.Errorf("after a cancel: %v %q", res.IsError, text(res))
	}
}

// TestTimeout: a plugin that hangs is stopped at the call's timeout: the
// server's, or less when the call asks for it, never more; what it printed
// before is kept.
func TestTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "gocmd", manifest.Capabilities{})
	cs := connect(t, e.server(func(o *mcpserver.Options) { o.Timeout = 3 * time.Second }), nil)
	for _, tc := range []struct {
		name string
		meta mcp.Meta
		want string
	}{
		{"server's", nil, "after 3s"},
		{"number", mcp.Meta{mcpserver.MetaTimeout: 0.5}, "after 500ms"},
		{"duration", mcp.Meta{mcpserver.MetaTimeout: "300ms"}, "after 300ms"},
		{"longer than the server's", mcp.Meta{mcpserver.MetaTimeout: 3600}, "after 3s"},
	} {
		// Side by side on the one server: each call has its own timeout.
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res := call(t, cs, "gocmd", map[string]any{"args": []string{"sleep", "60"}}, tc.meta)
			if !res.IsError || errorCode(res) != runner.CodeTimeout || !strings.Contains(text(res), tc.want) {
				t.Errorf("%v: %v %s %q", tc.meta, res.IsError, errorCode(res), text(res))
			}
			// The call's own timeout may end it before the plugin has
			// printed anything on a busy machine; the server's 3 s leave
			// it ten times what that takes.
			if tc.meta == nil && !strings.HasPrefix(text(res), "sleeping\n") {
				t.Errorf("the plugin's output before the timeout was lost: %q", text(res))
			}
			if took, d := time.Since(start), timeoutOf(t, tc.want); took < d {
				t.Errorf("the call ended after %v, before its %v timeout", took, d)
			}
		})
	}
}

// timeoutOf is the duration in "after 300ms".
func timeoutOf(t *testing.T, after string) time.Duration {
	d, err := time.ParseDuration(strings.TrimPrefix(after, "after "))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestConcurrentCalls: calls run side by side, each with its own runner,
// UI and timeout; a plugin that crashes or hangs fails only its own call,
// and the server goes on.
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-sh", protocol: manifest.ProtocolV1,
		commands: []command{{name: "shargs", binary: "bin/run"}, {name: "crash", binary: "bin/crash"}},
		files:    map[string]string{"bin/run": shArgs, "bin/crash": "#!/bin/sh\nIFS= read -r init\nkill -9 $$\n"}})
	e.installGo("fledge-plugin-go", "gocmd", manifest.Capabilities{})
	cs := connect(t, e.server(nil), nil)
	var wg sync.WaitGroup
	var failures atomic.Int32
	check := func(ok bool, format string, a ...any) {
		if !ok {
			failures.Add(1)
			t.Errorf(format, a...)
		}
	}
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arg := fmt.Sprintf("call %d", i)
			res := call(t, cs, "shargs", map[string]any{"args": []string{arg}}, nil)
			check(!res.IsError && text(res) == "1="+arg+"\n", "shargs %d: %q", i, text(res))
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		res := call(t, cs, "crash", nil, nil)
		check(res.IsError && errorCode(res) == runner.CodeCrashed, "crash: %s %q", errorCode(res), text(res))
	}()
	go func() {
		defer wg.Done()
		res := call(t, cs, "gocmd", map[string]any{"args": []string{"sleep", "60"}}, mcp.Meta{mcpserver.MetaTimeout: 1})
		check(errorCode(res) == runner.CodeTimeout, "hang: %s %q", errorCode(res), text(res))
	}()
	wg.Wait()
	res := call(t, cs, "gocmd", map[string]any{"args": []string{"exit", "0"}}, nil)
	if res.IsError || text(res) != "exiting\n" {
		t.Errorf("after the others: %v %q", res.IsError, text(res))
	}
}

// TestListChanged: an install, a grant and a removal change plugins.toml;
// the client is told the tool list changed and sees the change; nothing is
// announced while nothing changes.
func TestListChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "gocmd", manifest.Capabilities{})
	var changed atomic.Int32
	cs := connect(t, e.server(nil), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) },
	})
	tools := func() map[string]*mcp.Tool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*mcp.Tool{}
		for _, tool := range res.Tools {
			m[tool.Name] = tool
		}
		return m
	}
	time.Sleep(300 * time.Millisecond) // fifteen polls
	if n := changed.Load(); n != 0 {
		t.Fatalf("%d list_changed notifications while nothing changed", n)
	}

	e.installGo("fledge-plugin-new", "newcmd", manifest.Capabilities{})
	testutil.Eventually(t, "list_changed after an install", func() bool { return changed.Load() >= 1 })
	if _, ok := tools()["newcmd"]; !ok {
		t.Fatal("the new tool is not listed")
	}

	n := changed.Load()
	store := lockfile.NewStore(e.paths.PluginsFile(), e.paths.PluginsLock())
	err := store.Update(func(f *lockfile.File) error {
		p, _ := f.Get("fledge-plugin-new")
		p.Capabilities.Exec = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "list_changed after a grant", func() bool { return changed.Load() > n })
	if g := tools()["newcmd"].Meta[mcpserver.MetaGrants].(map[string]any); g["exec"] != true {
		t.Errorf("the grant does not show: %v", g)
	}

	n = changed.Load()
	if err := store.Update(func(f *lockfile.File) error { f.Remove("fledge-plugin-new"); return nil }); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "list_changed after a removal", func() bool { return changed.Load() > n })
	if _, ok := tools()["newcmd"]; ok {
		t.Error("the removed tool is still listed")
	}
}

// TestCollisionsServed: a command two plugins record is served once per
// plugin, and each tool runs its own plugin's command.
func TestCollisionsServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-a", protocol: manifest.ProtocolV1,
		commands: []command{{name: "dup", binary: "bin/run"}},
		files:    map[string]string{"bin/run": "#!/bin/sh\nIFS= read -r init\necho '{\"type\":\"output\",\"text\":\"from a\"}'\n"}})
	e.install(plugin{name: "fledge-plugin-b", protocol: manifest.ProtocolV1,
		commands: []command{{name: "dup", binary: "bin/run"}},
		files:    map[string]string{"bin/run": "#!/bin/sh\nIFS= read -r init\necho '{\"type\":\"output\",\"text\":\"from b\"}'\n"}})
	cs := connect(t, e.server(nil), nil)
	for _, tc := range []struct{ tool, want string }{{"a.dup", "from a"}, {"b.dup", "from b"}} {
		if res := call(t, cs, tc.tool, nil, nil); res.IsError || text(res) != tc.want {
			t.Errorf("%s: %v %q", tc.tool, res.IsError, text(res))
		}
	}
	if !strings.Contains(e.log.String(), "note: 2 plugins provide command dup; their tools are a.dup (fledge-plugin-a), b.dup (fledge-plugin-b)") {
		t.Errorf("the server log lacks the collision:\n%s", e.log)
	}
}

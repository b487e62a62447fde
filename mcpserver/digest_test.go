package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/catalog"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/mcpserver"
	"github.com/corvidlabs/fledge-go/settings"
)

// TestCatalogDigest: the initialize and tools/list results carry the
// digest of the tools offered: the catalog's own (what tools --json
// shows), the same from run to run, and another once what is offered
// changes (an install, the policy, --tools), which tools/list_changed
// announces.
func TestCatalogDigest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-alpha", commands: []command{{name: "one", binary: "bin/run"}, {name: "two", binary: "bin/run"}},
		files: map[string]string{"bin/run": "#!/bin/sh\necho ran\n"}})
	system := filepath.Join(e.root, "policy.toml")
	in := settings.Inputs{SystemPolicy: system, ConfigFile: e.paths.ConfigFile()}
	catalogDigest := func() string {
		set, err := settings.Load(in)
		if err != nil {
			t.Fatal(err)
		}
		c, err := catalog.Load(e.paths, set)
		if err != nil {
			t.Fatal(err)
		}
		return catalog.Digest(c.Tools)
	}
	changed := make(chan struct{}, 16)
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
	serve := func(tools []string) *mcp.ClientSession {
		return connect(t, e.server(func(o *mcpserver.Options) { o.Settings = in; o.Tools = tools }), opts)
	}
	digestOf := func(m mcp.Meta) string { s, _ := m[mcpserver.MetaCatalogDigest].(string); return s }
	listed := func(cs *mcp.ClientSession) string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return digestOf(res.Meta)
	}

	first := serve(nil)
	d := digestOf(first.InitializeResult().Meta)
	if !strings.HasPrefix(d, "sha256:") || d != catalogDigest() || listed(first) != d {
		t.Fatalf("initialize digest %q, tools/list %q, catalog %q", d, listed(first), catalogDigest())
	}
	if again := digestOf(serve(nil).InitializeResult().Meta); again != d {
		t.Errorf("another run: %q, want %q", again, d)
	}
	if sub := digestOf(serve([]string{"one"}).InitializeResult().Meta); sub == d || sub == "" {
		t.Errorf("--tools one: digest %q, want another than %q", sub, d)
	}

	wait := func(what string) string {
		t.Helper()
		testutil.Eventually(t, what+" to be announced", func() bool {
			select {
			case <-changed:
				return listed(first) != d
			default:
				return false
			}
		})
		return listed(first)
	}
	e.install(plugin{name: "fledge-plugin-beta", commands: []command{{name: "three", binary: "bin/run"}},
		files: map[string]string{"bin/run": "#!/bin/sh\necho ran\n"}})
	d = wait("an install")
	if d != catalogDigest() {
		t.Errorf("after an install: %q, catalog %q", d, catalogDigest())
	}
	if err := os.WriteFile(system, []byte("[tools]\ndeny = [\"three\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d = wait("a policy change")
	if d != catalogDigest() {
		t.Errorf("after a policy change: %q, catalog %q", d, catalogDigest())
	}
	// A drop-in added beside the system policy, a file the server did not
	// read at start: policy.d is listed again at each poll.
	dropIns := filepath.Join(e.root, "policy.d")
	if err := os.MkdirAll(dropIns, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dropIns, "10-team.toml"), []byte("[tools]\ndeny = [\"two\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d = wait("a new drop-in")
	if d != catalogDigest() {
		t.Errorf("after a new drop-in: %q, catalog %q", d, catalogDigest())
	}
}

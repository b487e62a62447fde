//go:build !fledge_nomcp

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
)

// powers is what one surface says a plugin may do: its tier and its
// effective grants.
type powers struct {
	Tier   string
	Grants map[string]any
}

func (p powers) String() string {
	b, _ := json.Marshal(p.Grants)
	return p.Tier + " " + string(b)
}

// TestEverySurfaceGivesOneAnswer: list, info, audit, tools, help, the MCP
// tools/list and the run itself say the same tier and the same effective
// grants for one plugin: team with all it was granted, and, once an admin
// policy stops trusting its owner and limits what unverified plugins may
// be granted, unverified with only what that limit leaves (the run is
// denied exec).
func TestEverySurfaceGivesOneAnswer(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	fh := filepath.Join(work, "fh")
	env := map[string]string{"FLEDGE_HOME": fh, "HOME": work, "NO_COLOR": "1", "PATH": os.Getenv("PATH"),
		"FLEDGE_GITHUB_URL": "file://" + filepath.Join(work, "gh"), "FLEDGE_NON_INTERACTIVE": "1"}
	repo := filepath.Join(work, "gh", "acme", "fledge-plugin-x")
	writeTree(t, repo, map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-x\"\nversion = \"0.1.0\"\nprotocol = \"fledge-v1\"\n\n" +
			"[[commands]]\nname = \"xpow\"\nbinary = \"bin/x\"\ndescription = \"asks to exec\"\n\n" +
			"[capabilities]\nexec = true\nstore = true\n",
		// It says what init granted it and what its exec request got.
		"bin/x": `#!/bin/sh
IFS= read -r init
printf '{"type":"output","text":"init exec: %s\\n"}\n' "$(printf '%s' "$init" | sed -n 's/.*"capabilities":{"exec":\([a-z]*\).*/\1/p')"
printf '%s\n' '{"type":"exec","id":"1","command":"true"}'
IFS= read -r reply
printf '{"type":"output","text":"exec: %s\\n"}\n' "$(printf '%s' "$reply" | sed -n 's/.*"code":\([0-9]*\).*/\1/p')"
`,
	})
	if _, err := initRepo(repo); err != nil {
		t.Fatal(err)
	}
	if out, code := runInProcess(t, work, env, []string{"plugins", "install", "acme/fledge-plugin-x", "--grant", "exec,store"}); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	// Installed from github.com, the record would name it there: fetched
	// from a file:// URL, a plugin is never more than unverified.
	paths, err := home.New(fh)
	if err != nil {
		t.Fatal(err)
	}
	err = lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock()).Update(func(f *lockfile.File) error {
		p, ok := f.Get("fledge-plugin-x")
		if !ok {
			return fmt.Errorf("not recorded: %+v", f.Plugins)
		}
		p.URL = "https://github.com/acme/fledge-plugin-x"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, paths.ConfigFile(), []byte("[trust]\norgs = [\"acme\"]\n"), 0o644)

	all := map[string]any{"exec": true, "store": true, "metadata": false, "network": false, "filesystem": "none", "environment": []any{}}
	assertOneAnswer(t, work, env, powers{"team", all}, "0")

	policyFile := filepath.Join(work, "policy.toml")
	testutil.WriteFile(t, policyFile, []byte("[trust]\nowners = [\"someone-else\"]\n\n[capabilities]\nunverified = [\"store\"]\n"), 0o644)
	env["FLEDGE_POLICY"] = policyFile
	narrowed := map[string]any{"exec": false, "store": true, "metadata": false, "network": false, "filesystem": "none", "environment": []any{}}
	assertOneAnswer(t, work, env, powers{"unverified", narrowed}, "126")
}

// assertOneAnswer asks every surface and compares each answer with want;
// execCode is what the plugin's exec request must get at run time.
func assertOneAnswer(t *testing.T, work string, env map[string]string, want powers, execCode string) {
	t.Helper()
	got := map[string]powers{}
	asJSON := func(args ...string) map[string]any {
		t.Helper()
		out, code := runInProcess(t, work, env, args)
		var doc map[string]any
		if code != 0 || json.Unmarshal(out, &doc) != nil {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		return doc
	}
	first := func(doc map[string]any, key string) map[string]any {
		t.Helper()
		list, _ := doc[key].([]any)
		if len(list) != 1 {
			t.Fatalf("%s: want one entry, got %v", key, doc[key])
		}
		return list[0].(map[string]any)
	}
	got["plugins list --json"] = of(first(asJSON("plugins", "list", "--json"), "plugins"), "trust_tier", "granted")
	got["plugins info --json"] = of(asJSON("plugins", "info", "x", "--json")["plugin"].(map[string]any), "trust_tier", "granted")
	got["plugins audit --json"] = of(first(asJSON("plugins", "audit", "--json"), "audit"), "trust_tier", "granted")
	got["plugins tools --json"] = of(first(asJSON("plugins", "tools", "--json"), "tools"), "trust_tier", "grants")
	mcpPowers, mcpRun := mcpTool(t, env)
	got["mcp tools/list"] = mcpPowers

	out, errOut, code := runCaptured(t, env, []string{"help", "xpow"})
	if code != 0 {
		t.Fatalf("help xpow: exit %d\n%s", code, errOut)
	}
	var granted []string
	for _, c := range []string{"exec", "store", "metadata", "network"} {
		if want.Grants[c] == true {
			granted = append(granted, c)
		}
	}
	if !strings.Contains(out, "Provided by fledge-plugin-x 0.1.0 ("+want.Tier+")") || !strings.Contains(out, "\nGranted: "+strings.Join(granted, ", ")+"\n") {
		t.Errorf("help xpow does not say %s, granted %v:\n%s", want.Tier, granted, out)
	}

	for surface, p := range got {
		if p.String() != want.String() {
			t.Errorf("%s says %s, want %s", surface, p, want)
		}
	}

	// The run is what the surfaces said, from the command line and from
	// an agent.
	out, errOut, code = runCaptured(t, env, []string{"xpow"})
	wantExec := fmt.Sprint(want.Grants["exec"])
	if code != 0 || !strings.Contains(out, "init exec: "+wantExec+"\n") || !strings.Contains(out, "exec: "+execCode+"\n") {
		t.Errorf("fledge xpow: exit %d, want init exec %s and exec answered %s:\n%s\n%s", code, wantExec, execCode, out, errOut)
	}
	if !strings.Contains(mcpRun, "init exec: "+wantExec+"\n") || !strings.Contains(mcpRun, "exec: "+execCode+"\n") {
		t.Errorf("tools/call xpow: want init exec %s and exec answered %s:\n%s", wantExec, execCode, mcpRun)
	}
}

// mcpTool serves fledge mcp in process over a pipe, reads the one tool's
// tier and grants from its _meta in tools/list, and calls it.
func mcpTool(t *testing.T, env map[string]string) (powers, string) {
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
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "powers-test", Version: "1"}, nil).Connect(ctx,
		&mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect to fledge mcp: %v", err)
	}
	res, err := cs.ListTools(ctx, nil)
	var ran string
	if err == nil {
		r, cerr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "xpow", Arguments: map[string]any{}})
		if cerr != nil || r.IsError || len(r.Content) != 1 {
			t.Errorf("tools/call xpow: %v %+v\n%s", cerr, r, stderr.String())
		} else if text, ok := r.Content[0].(*mcp.TextContent); ok {
			ran = text.Text
		}
	}
	cs.Close()
	inW.Close()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("fledge mcp did not end when its stdin closed")
	}
	if err != nil || len(res.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v\n%s", err, res, stderr.String())
	}
	meta := map[string]any(res.Tools[0].Meta)
	return of(meta, "fledge/trust_tier", "fledge/grants"), ran
}

// of reads a tier and a grants object from one surface's answer.
func of(m map[string]any, tierKey, grantsKey string) powers {
	tier, _ := m[tierKey].(string)
	grants, _ := m[grantsKey].(map[string]any)
	return powers{tier, grants}
}

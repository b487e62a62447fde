package catalog

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/treehash"
)

func names(c *Catalog) []string {
	var out []string
	for _, t := range c.Tools {
		out = append(out, t.Name+"="+t.Plugin+":"+t.Command)
	}
	return out
}

// TestNames: a command one plugin provides keeps its name; a command two
// plugins provide is qualified for both, by short name, or by full name
// when the short one is taken; too long a name is hashed within MCP's 128
// characters. The result is the same whatever plugins.toml's order, and
// every collision is reported.
func TestNames(t *testing.T) {
	long := "fledge-plugin-" + strings.Repeat("l", 80)
	plugins := []lockfile.Plugin{
		{Name: "fledge-plugin-gh", Commands: []string{"status", "gh-pr"}},
		{Name: "fledge-plugin-git", Commands: []string{"status", "log"}},
		{Name: "fledge-gh", Commands: []string{"log"}},             // short name "gh" too
		{Name: "fledge-plugin-misc", Commands: []string{"gh.log"}}, // takes "gh.log"
		{Name: long, Commands: []string{"status", strings.Repeat("c", 60)}},
		{Name: "fledge-plugin-other", Commands: []string{strings.Repeat("c", 60)}},
	}
	var first []string
	var firstCol string
	for i := range 20 {
		f := &lockfile.File{Plugins: slices.Clone(plugins)}
		if i > 0 {
			rand.Shuffle(len(f.Plugins), func(a, b int) { f.Plugins[a], f.Plugins[b] = f.Plugins[b], f.Plugins[a] })
		}
		c := Build(f, nil, nil)
		got, col := names(c), mustJSON(c.Collisions)
		if i == 0 {
			first, firstCol = got, col
			continue
		}
		if !slices.Equal(got, first) || col != firstCol {
			t.Fatalf("order %d changed the names:\n%v\n%v", i, got, first)
		}
	}
	c := Build(&lockfile.File{Plugins: plugins}, nil, nil)
	byKey := map[string]string{}
	seen := map[string]bool{}
	for _, tool := range c.Tools {
		byKey[tool.Plugin+":"+tool.Command] = tool.Name
		if seen[tool.Name] {
			t.Errorf("duplicate tool name %s", tool.Name)
		}
		seen[tool.Name] = true
		if len(tool.Name) > MaxToolName || strings.Trim(tool.Name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "" {
			t.Errorf("invalid tool name %q", tool.Name)
		}
		if got, ok := c.Tool(tool.Name); !ok || got != tool {
			t.Errorf("Tool(%q) does not find it", tool.Name)
		}
	}
	hashed := byKey[long+":"+strings.Repeat("c", 60)]
	for key, want := range map[string]string{
		"fledge-plugin-gh:gh-pr":                         "gh-pr",
		"fledge-plugin-gh:status":                        "gh.status",
		"fledge-plugin-git:status":                       "git.status",
		"fledge-plugin-git:log":                          "git.log",
		"fledge-gh:log":                                  "fledge-gh.log",
		"fledge-plugin-misc:gh.log":                      "gh.log",
		long + ":status":                                 strings.Repeat("l", 80) + ".status",
		"fledge-plugin-other:" + strings.Repeat("c", 60): "other." + strings.Repeat("c", 60),
	} {
		if byKey[key] != want {
			t.Errorf("%s: named %q, want %q", key, byKey[key], want)
		}
	}
	if len(hashed) != MaxToolName || !strings.HasPrefix(hashed, long+"."+"ccc") {
		t.Errorf("long name %q (%d characters)", hashed, len(hashed))
	}
	want := fmt.Sprintf(`[{"Command":"%s","Plugins":["%s","fledge-plugin-other"],"Tools":["%s","other.%[1]s"]},`, strings.Repeat("c", 60), long, hashed) +
		`{"Command":"log","Plugins":["fledge-gh","fledge-plugin-git"],"Tools":["fledge-gh.log","git.log"]},` +
		fmt.Sprintf(`{"Command":"status","Plugins":["fledge-plugin-gh","fledge-plugin-git","%s"],"Tools":["gh.status","git.status","%s.status"]}]`, long, strings.Repeat("l", 80))
	if got := mustJSON(c.Collisions); got != want {
		t.Errorf("collisions\n got %s\nwant %s", got, want)
	}
	if _, ok := c.Tool("status"); ok {
		t.Error("a colliding command must not keep its bare name")
	}
}

// TestSkipped: a recorded command whose name fledge would never install
// (a hostile or hand-edited plugins.toml) is reported, not offered.
func TestSkipped(t *testing.T) {
	f := &lockfile.File{Plugins: []lockfile.Plugin{{Name: "fledge-plugin-x", Commands: []string{"ok", "bad name", "-rf", "ok"}}}}
	c := Build(f, nil, nil)
	if got := names(c); !slices.Equal(got, []string{"ok=fledge-plugin-x:ok"}) {
		t.Errorf("tools %v", got)
	}
	if len(c.Skipped) != 2 || c.Skipped[0].Command != "bad name" || c.Skipped[1].Command != "-rf" {
		t.Errorf("skipped %+v", c.Skipped)
	}
}

// TestDetailsSource: what a tool declares is what was approved (the
// record), for a live link too; only a record without details (the Rust
// fledge's) reads the installed plugin.toml, and only while it is the one
// approved. A live link's edit is listed in Edited and changes no tool.
func TestDetailsSource(t *testing.T) {
	recorded := []manifest.Command{{Name: "go", Description: "recorded", Args: []manifest.Arg{{Name: "a", Type: "string"}}}}
	live := []byte(`[plugin]
name = "p"
version = "1.0.0"
protocol = "fledge-v1"
runtime = "wasm"

[[commands]]
name = "go"
description = "live"
dangerous = true
args = [{ name = "b", type = "boolean" }]

[[commands]]
name = "new"
`)
	if _, err := manifest.Decode(live); err != nil {
		t.Fatal(err)
	}
	approved := treehash.FileDigest(live)
	read := map[string]int{}
	installed := func(name string) ([]byte, error) {
		read[name]++
		if name == "gone" {
			return nil, errors.New("no plugin.toml")
		}
		return live, nil
	}
	f := &lockfile.File{Plugins: []lockfile.Plugin{
		{Name: "copy", Kind: lockfile.KindLocalCopy, Commands: []string{"go"}, CommandDetails: recorded},
		{Name: "git", Commands: []string{"go"}, CommandDetails: recorded},
		{Name: "link", Kind: lockfile.KindLocalLink, Source: "/src/my plugin", Commands: []string{"go"}, CommandDetails: recorded, ManifestHash: "sha256:" + strings.Repeat("0", 64)},
		{Name: "same", Kind: lockfile.KindLocalLink, Commands: []string{"go"}, CommandDetails: recorded, ManifestHash: approved},
		{Name: "rust", Commands: []string{"go"}},
		{Name: "rust-edited", Commands: []string{"go"}, ManifestHash: "sha256:" + strings.Repeat("1", 64)},
		{Name: "gone", Description: "plugin text", Commands: []string{"go"}},
	}}
	c := Build(f, nil, installed)
	got := map[string]string{}
	for _, tool := range c.Tools {
		got[tool.Plugin] = fmt.Sprintf("%s %v %v %s %s", tool.Description, tool.Dangerous, tool.FreeForm, tool.Runtime, mustJSON(tool.Args))
	}
	rec := `recorded false false native [{"name":"a","type":"string","required":false}]`
	want := map[string]string{
		"copy":        rec,
		"git":         rec,
		"link":        rec,
		"same":        rec,
		"rust":        `live true false wasm [{"name":"b","type":"boolean","required":false}]`,
		"rust-edited": `Runs go, a command of the fledge plugin rust-edited. false true native []`,
		"gone":        `plugin text false true native []`,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
	if read["copy"] != 0 || read["git"] != 0 {
		t.Errorf("read the installed manifest of an approved record: %v", read)
	}
	if read["link"] != 1 {
		t.Errorf("a live link's plugin.toml was read %d times, want once (to tell an edit)", read["link"])
	}
	if len(c.Tools) != len(want) {
		t.Errorf("a command the record does not list became a tool: %v", names(c))
	}
	if want := []Edited{{Plugin: "link", Source: "/src/my plugin"}}; !slices.Equal(c.Edited, want) {
		t.Errorf("edited %v, want %v", c.Edited, want)
	}
}

// TestReadOnly: only a protocol plugin, without exec and hooks, running a
// command that is not dangerous, is read-only.
func TestReadOnly(t *testing.T) {
	base := lockfile.Plugin{Protocol: manifest.ProtocolV1, Capabilities: manifest.Capabilities{Store: true, Metadata: true}}
	cases := map[string]func(p *lockfile.Plugin){
		"ro":        func(p *lockfile.Plugin) {},
		"exec":      func(p *lockfile.Plugin) { p.Capabilities.Exec = true },
		"hooks":     func(p *lockfile.Plugin) { p.Hooks = map[string]string{"post_install": "make"} },
		"noproto":   func(p *lockfile.Plugin) { p.Protocol = "" },
		"dangerous": func(p *lockfile.Plugin) { p.CommandDetails[0].Dangerous = true },
	}
	f := &lockfile.File{}
	for name, mod := range cases {
		p := base
		p.Name, p.Commands = name, []string{name}
		p.CommandDetails = []manifest.Command{{Name: name}}
		mod(&p)
		f.Plugins = append(f.Plugins, p)
	}
	for _, tool := range Build(f, nil, nil).Tools {
		if tool.ReadOnly != (tool.Name == "ro") {
			t.Errorf("%s: read-only %v", tool.Name, tool.ReadOnly)
		}
		if tool.Dangerous != (tool.Name == "dangerous") {
			t.Errorf("%s: dangerous %v", tool.Name, tool.Dangerous)
		}
	}
}

// A native plugin's hint of read-only needs its declared filesystem scope
// enforced by the kernel here; an undeclared scope (which may write the
// project) never gives it, nor does confinement turned off.
func TestReadOnlyHintFollowsConfinement(t *testing.T) {
	k := confine.Detect()
	p := func(name, scope string) lockfile.Plugin {
		return lockfile.Plugin{Name: name, Commands: []string{name}, CommandDetails: []manifest.Command{{Name: name}},
			Protocol: manifest.ProtocolV1, Requested: manifest.Capabilities{Filesystem: scope}, Capabilities: manifest.Capabilities{Filesystem: scope}}
	}
	c := Build(&lockfile.File{Plugins: []lockfile.Plugin{p("scoped", "project"), p("undeclared", "")}}, nil, nil)
	for _, tool := range c.Tools {
		want := tool.Name == "scoped" && k.Files
		if got := tool.Hints().ReadOnly; got != want {
			t.Errorf("%s: read-only hint %v, want %v (confinement %+v)", tool.Name, got, want, tool.Confinement)
		}
	}
	c.Unconfine("FLEDGE_CONFINE=off")
	for _, tool := range c.Tools {
		if tool.Hints().ReadOnly || tool.Confinement.Reason != "turned off by FLEDGE_CONFINE=off" {
			t.Errorf("%s after Unconfine: hints %+v, confinement %+v", tool.Name, tool.Hints(), tool.Confinement)
		}
	}
}

package catalog

import (
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/manifest"
)

// TestHints: read-only only where it is enforced (a wasm plugin, a native
// one the kernel confines to a declared scope), never
// for a dangerous command; destructive otherwise; open world exactly with
// network.
func TestHints(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool Tool
		want Hints
	}{
		{"confined read-only", Tool{ReadOnly: true, Runtime: manifest.RuntimeWasm}, Hints{ReadOnly: true, Enforced: true}},
		{"native read-only grants", Tool{ReadOnly: true, Runtime: "native"}, Hints{Destructive: true}},
		{"native, confined to a declared scope", Tool{ReadOnly: true, Runtime: "native", Confinement: confine.Status{Scope: confine.ScopeProject, Enforced: true}}, Hints{ReadOnly: true, Enforced: true}},
		{"native, confined but undeclared (writes the project)", Tool{ReadOnly: true, Runtime: "native", Confinement: confine.Status{Scope: confine.ScopeDefault, Network: true, Enforced: true}}, Hints{Destructive: true}},
		{"native, declared but not enforced here", Tool{ReadOnly: true, Runtime: "native", Confinement: confine.Status{Scope: confine.ScopeNone, Reason: "the kernel has no Landlock"}}, Hints{Destructive: true}},
		{"writer", Tool{Runtime: manifest.RuntimeWasm, Grants: manifest.Capabilities{Exec: true}}, Hints{Enforced: true, Destructive: true}},
		{"networked", Tool{ReadOnly: true, Runtime: manifest.RuntimeWasm, Grants: manifest.Capabilities{Network: true}}, Hints{ReadOnly: true, Enforced: true, OpenWorld: true}},
		{"dangerous", Tool{ReadOnly: true, Dangerous: true, Runtime: manifest.RuntimeWasm}, Hints{Enforced: true, Destructive: true}},
	} {
		if got := tc.tool.Hints(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestDigest: the same tools give the same digest; each thing an agent is
// told, and the recorded commit, changes it.
func TestDigest(t *testing.T) {
	base := func() []*Tool {
		return []*Tool{{Name: "a", Plugin: "p", Command: "a", Commit: "c1", Description: "d", InputSchema: inputSchema(nil)}}
	}
	d := Digest(base())
	if d != Digest(base()) {
		t.Fatal("the same tools gave two digests")
	}
	for what, change := range map[string]func(*Tool){
		"name":        func(t *Tool) { t.Name = "b" },
		"commit":      func(t *Tool) { t.Commit = "c2" },
		"description": func(t *Tool) { t.Description = "e" },
		"schema":      func(t *Tool) { t.InputSchema = inputSchema([]manifest.Arg{{Name: "x", Type: "string"}}) },
		"grants":      func(t *Tool) { t.Grants.Network = true },
		"dangerous":   func(t *Tool) { t.Dangerous = true },
	} {
		ts := base()
		change(ts[0])
		if Digest(ts) == d {
			t.Errorf("a change of %s kept the digest", what)
		}
	}
}

package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/trust"
)

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const example = `
[sources]
allow = ["github.com/my-org/*", "file:///srv/plugins/*"]
deny  = ["github.com/evil/*"]
[capabilities]
unverified = []
team = ["exec", "store", "metadata"]
[hooks]
unverified = false
[pins]
require = "tag"
min_tag_age = "72h"
`

func TestParseExample(t *testing.T) {
	l, err := Parse("/etc/fledge/policy.toml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{l}}
	if d := s.Allows(string(trust.Unverified), "exec"); d == nil || d.Rule != "[capabilities] unverified" || d.File != "/etc/fledge/policy.toml" {
		t.Errorf("unverified exec: %+v", d)
	}
	if d := s.Allows(string(trust.Team), "network"); d == nil || !strings.Contains(d.Reason, "allows only exec, store, metadata") {
		t.Errorf("team network: %+v", d)
	}
	if d := s.Allows(string(trust.Team), "exec"); d != nil {
		t.Errorf("team exec refused: %v", d)
	}
	if d := s.Allows(string(trust.Official), "network"); d != nil {
		t.Errorf("official has no limit, refused: %v", d)
	}
	if d := s.Allows(string(trust.Unverified), ItemHooks); d == nil || d.Rule != "[hooks] unverified" {
		t.Errorf("unverified hooks: %+v", d)
	}
	if d := s.Allows("", "store"); d == nil {
		t.Error("an unknown tier is not judged as unverified")
	}
	if s.MinTagAge() != 72*time.Hour {
		t.Errorf("min_tag_age %v", s.MinTagAge())
	}
}

func TestParseFailsClosed(t *testing.T) {
	for name, body := range map[string]string{
		"unknown table":      "[capabilites]\nteam = []\n",
		"unknown key":        "[pins]\nrequire = \"tag\"\nmin_tag_ag = \"1h\"\n",
		"unknown tier":       "[capabilities]\nverified = []\n",
		"unknown capability": "[capabilities]\nteam = [\"exce\"]\n",
		"hooks as a cap":     "[capabilities]\nteam = [\"hooks\"]\n",
		"bad require":        "[pins]\nrequire = \"branch\"\n",
		"bad age":            "[pins]\nmin_tag_age = \"three days\"\n",
		"negative age":       "[pins]\nmin_tag_age = \"-1h\"\n",
		"bad pattern":        "[sources]\ndeny = [\"\"]\n",
		"bad glob":           "[sources]\ndeny = [\"github.com/[evil/*\"]\n",
		"bad owner":          "[trust]\nowners = [\"my-org/*\"]\n",
		"wrong type":         "[hooks]\nunverified = \"no\"\n",
		"syntax":             "[sources\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("/p.toml", []byte(body))
			var ie *InvalidError
			if !errors.As(err, &ie) || ie.File != "/p.toml" {
				t.Fatalf("want an InvalidError naming the file, got %v", err)
			}
			if !strings.Contains(err.Error(), "refuses") {
				t.Errorf("the error does not say what fledge does now: %v", err)
			}
		})
	}
}

func TestSources(t *testing.T) {
	l, err := Parse("sys", []byte(example+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := Parse("reg", []byte("[sources]\ndeny = [\"registry:crypto-*\", \"*/bad-owner/**\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{l, reg}}
	for _, c := range []struct {
		src  Source
		rule string // "" when allowed
	}{
		{Source{URL: "https://github.com/my-org/fledge-plugin-x.git"}, ""},
		{Source{URL: "https://GitHub.com/My-Org/fledge-plugin-x/"}, ""},
		{Source{URL: "ssh://git@github.com:22/my-org/x"}, ""},
		{Source{URL: "git@github.com:my-org/x.git"}, ""},
		{Source{URL: "https://github.com/my-org/sub/x"}, "[sources] allow"},
		{Source{URL: "https://github.com/evil/x"}, "[sources] deny"},
		{Source{URL: "https://github.com/other/x"}, "[sources] allow"},
		{Source{URL: "file:///srv/plugins/x"}, ""},
		{Source{Path: "/srv/plugins/x"}, ""},
		{Source{Path: "/srv/plugins/x/y"}, "[sources] allow"},
		{Source{Path: "/home/me/x"}, "[sources] allow"},
		{Source{URL: "https://github.com/my-org/x", Registry: "crypto-miner"}, "[sources] deny"},
		{Source{URL: "https://gitlab.com/bad-owner/group/x"}, "[sources] deny"},
		{Source{}, "[sources] allow"},
	} {
		d := s.CheckSource(c.src)
		got := ""
		if d != nil {
			got = d.Rule
		}
		if got != c.rule {
			t.Errorf("%+v: refused by %q, want %q (%v)", c.src, got, c.rule, d)
		}
	}
	// A deny names the pattern; an allow names what it allows.
	if d := s.CheckSource(Source{URL: "https://github.com/evil/x"}); !strings.Contains(d.Reason, `"github.com/evil/*"`) || d.File != "sys" {
		t.Errorf("deny: %+v", d)
	}
}

func TestPins(t *testing.T) {
	tag, _ := Parse("a", []byte("[pins]\nrequire = \"tag\"\n"))
	commit, _ := Parse("b", []byte("[pins]\nrequire = \"commit\"\n"))
	any, _ := Parse("c", []byte("[pins]\nrequire = \"any\"\n"))
	for _, c := range []struct {
		layers []*Layer
		kind   string
		rule   string
	}{
		{[]*Layer{any}, "branch", ""},
		{[]*Layer{tag}, "branch", "[pins] require"},
		{[]*Layer{tag}, "default", "[pins] require"},
		{[]*Layer{tag}, "tag", ""},
		{[]*Layer{tag}, "constraint", ""},
		{[]*Layer{tag}, "commit", ""},
		{[]*Layer{any, tag}, "branch", "[pins] require"}, // the strictest wins
		{[]*Layer{tag, commit}, "tag", "[pins] require"},
		{[]*Layer{commit, any}, "commit", ""},
	} {
		s := &Set{layers: c.layers}
		d := s.CheckPin(c.kind, "x")
		got := ""
		if d != nil {
			got = d.Rule
		}
		if got != c.rule {
			t.Errorf("%d layers, %s: %q, want %q", len(c.layers), c.kind, got, c.rule)
		}
	}
}

func TestTagAge(t *testing.T) {
	short, _ := Parse("short", []byte("[pins]\nmin_tag_age = \"1h\"\n"))
	long, _ := Parse("long", []byte("[pins]\nmin_tag_age = \"3d\"\n"))
	s := &Set{layers: []*Layer{short, long}}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if d := s.CheckTagAge("v1", now.Add(-2*time.Hour), now); d == nil || d.File != "long" || !strings.Contains(d.Reason, "2h") {
		t.Errorf("a 2h old tag under 3d: %+v", d)
	}
	if d := s.CheckTagAge("v1", now.Add(-73*time.Hour), now); d != nil {
		t.Errorf("a 73h old tag under 3d: %v", d)
	}
	if d := s.CheckTagAge("v1", now.Add(time.Hour), now); d == nil {
		t.Error("a tag from the future passed")
	}
	if d := s.CheckTagAge("v1", time.Time{}, now); d == nil {
		t.Error("a tag of unknown age passed")
	}
	if d := (&Set{}).CheckTagAge("v1", now, now); d != nil {
		t.Errorf("no policy refused: %v", d)
	}
}

// A user layer cannot widen what the system layer forbids: every rule
// intersects.
func TestLayersOnlyNarrow(t *testing.T) {
	dir := t.TempDir()
	sys := write(t, dir, "system.toml", "[capabilities]\nunverified = [\"store\"]\n[hooks]\nunverified = false\n[sources]\nallow = [\"github.com/*/*\"]\n[trust]\nowners = [\"my-org\"]\n")
	user := write(t, dir, "user.toml", "[capabilities]\nunverified = [\"exec\", \"store\", \"metadata\"]\n[hooks]\nunverified = true\n[sources]\nallow = [\"**\"]\n[trust]\nowners = [\"my-org\", \"evil\"]\n")
	cfg := []byte("[trust]\norgs = [\"evil\"]\n[policy.capabilities]\nunverified = [\"exec\", \"store\"]\n[policy.pins]\nrequire = \"any\"\n")
	s, err := Load(Inputs{System: sys, Env: user, ConfigFile: "config.toml", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Layers()); n != 3 {
		t.Fatalf("%d layers", n)
	}
	if d := s.Allows(string(trust.Unverified), "exec"); d == nil || d.File != sys {
		t.Errorf("exec re-allowed by a later layer: %+v", d)
	}
	if d := s.Allows(string(trust.Unverified), "store"); d != nil {
		t.Errorf("store: %v", d)
	}
	if d := s.Allows(string(trust.Unverified), ItemHooks); d == nil || d.File != sys {
		t.Errorf("hooks re-allowed: %+v", d)
	}
	if d := s.CheckSource(Source{URL: "https://gitlab.com/a/b"}); d == nil || d.File != sys {
		t.Errorf("source re-allowed: %+v", d)
	}
	kept, dropped := s.Trusted([]string{"My-Org", "evil"})
	if len(kept) != 1 || kept[0] != "My-Org" || len(dropped) != 1 || dropped[0].File != sys {
		t.Errorf("trust: kept %v, dropped %+v", kept, dropped)
	}
	caps, hooks, denied := s.Narrow(string(trust.Unverified), manifest.Capabilities{Exec: true, Store: true, Metadata: true}, true)
	if !caps.Equal(manifest.Capabilities{Store: true}) || hooks || len(denied) != 3 {
		t.Errorf("narrow: %+v %v %+v", caps, hooks, denied)
	}
	e := s.Effective()
	if got := e.Capabilities[string(trust.Unverified)]; got == nil || strings.Join(got.Allowed, ",") != "store" || len(got.From) != 3 {
		t.Errorf("effective unverified: %+v", got)
	}
	if e.Hooks[string(trust.Unverified)] == nil || e.Hooks[string(trust.Unverified)].Allowed {
		t.Errorf("effective hooks: %+v", e.Hooks[string(trust.Unverified)])
	}
	if e.Owners == nil || strings.Join(e.Owners.Allowed, ",") != "my-org" {
		t.Errorf("effective owners: %+v", e.Owners)
	}
	if len(e.Allow) != 2 || e.Require == nil || e.Require.Value != "any" || e.Require.From.Rule != "[policy.pins] require" {
		t.Errorf("effective: %+v %+v", e.Allow, e.Require)
	}
	if e.Layers[2].File != "config.toml [policy]" || e.Layers[2].Scope != ScopeConfig {
		t.Errorf("config layer: %+v", e.Layers[2])
	}
}

func TestLoadFailsClosed(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.toml", "[pins]\nrequire = \"tag\"\n")
	bad := write(t, dir, "bad.toml", "[pins]\nrequire = \"sometimes\"\n")
	for name, in := range map[string]Inputs{
		"invalid system":      {System: bad},
		"system is a dir":     {System: dir},
		"env names a missing": {System: good, Env: filepath.Join(dir, "missing.toml")},
		"invalid env":         {Env: good + string(os.PathListSeparator) + bad},
		"config unknown key":  {ConfigFile: "config.toml", Config: []byte("[policy.pins]\nrequir = \"tag\"\n")},
		"config escape":       {ConfigFile: "config.toml", Config: []byte("[\"\\u0070olicy\".pins]\nrequir = \"tag\"\n")},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(in)
			var ie *InvalidError
			if !errors.As(err, &ie) {
				t.Fatalf("want an InvalidError, got %v", err)
			}
		})
	}
	// A missing system file is no layer; config.toml's other tables are
	// not the policy's business.
	s, err := Load(Inputs{System: filepath.Join(dir, "none.toml"), ConfigFile: "c", Config: []byte("[trust]\norgs = [\"a\"]\n[someday]\nx = 1\n")})
	if err != nil || !s.Empty() || s.SystemFound {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestDigestChangesWithEveryLayer(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.toml", "[pins]\nrequire = \"tag\"\n")
	s1, _ := Load(Inputs{System: a})
	write(t, dir, "a.toml", "[pins]\nrequire = \"tag\"\n\n")
	s2, _ := Load(Inputs{System: a})
	s3, _ := Load(Inputs{System: a, ConfigFile: "c", Config: []byte("[policy.pins]\nrequire = \"tag\"\n")})
	if s1.Digest() == s2.Digest() || s2.Digest() == s3.Digest() {
		t.Error("the digest did not change with the policy")
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"72h": 72 * time.Hour, "3d": 72 * time.Hour, "90m": 90 * time.Minute, "0.5d": 12 * time.Hour} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	for d, want := range map[time.Duration]string{72 * time.Hour: "3d", 90 * time.Minute: "1h30m", 2 * time.Hour: "2h", 36 * time.Hour: "1d12h",
		796*time.Hour + 5*time.Minute: "33d4h5m", 0: "0s", 30 * time.Second: "30s"} {
		if got := FormatAge(d); got != want {
			t.Errorf("FormatAge(%v) = %q, want %q", d, got, want)
		}
	}
}

// An env: item is judged as the capability environment, and a denial
// names the item asked for.
func TestAllowsEnvItems(t *testing.T) {
	l, err := Parse("p.toml", []byte("[capabilities]\nunverified = [\"store\"]\nteam = [\"store\", \"environment\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{l}}
	if d := s.Allows("unverified", "env:GITHUB_TOKEN"); d == nil || d.Item != "env:GITHUB_TOKEN" {
		t.Errorf("unverified env:GITHUB_TOKEN: %+v", d)
	}
	if d := s.Allows("team", "env:GITHUB_TOKEN"); d != nil {
		t.Errorf("team env:GITHUB_TOKEN: %+v", d)
	}
}

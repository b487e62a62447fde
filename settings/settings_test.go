package settings

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/trust"
)

// load writes config.toml and a system policy (when given) and loads them.
func load(t *testing.T, cfg, pol string) (*Settings, error) {
	t.Helper()
	dir := t.TempDir()
	in := Inputs{ConfigFile: filepath.Join(dir, "config.toml")}
	if err := os.WriteFile(in.ConfigFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if pol != "" {
		in.SystemPolicy = filepath.Join(dir, "policy.toml")
		if err := os.WriteFile(in.SystemPolicy, []byte(pol), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Load(in)
}

func mustLoad(t *testing.T, cfg, pol string) *Settings {
	t.Helper()
	s, err := load(t, cfg, pol)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const teamConfig = "[trust]\norgs = [\"Good-Org\", \"evil\"]\nusers = [\"alice\"]\n"

var (
	evil = &lockfile.Plugin{Name: "fledge-plugin-x", Kind: lockfile.KindGit, Source: "evil/fledge-plugin-x",
		URL: "https://github.com/evil/fledge-plugin-x", Capabilities: manifest.Capabilities{Exec: true, Store: true},
		Hooks: map[string]string{"post_install": "make"}}
	good = &lockfile.Plugin{Name: "fledge-plugin-y", Kind: lockfile.KindGit, Source: "good-org/fledge-plugin-y",
		URL: "https://github.com/good-org/fledge-plugin-y", Capabilities: manifest.Capabilities{Exec: true, Store: true}}
)

// A [trust] owners rule narrows what config.toml trusts: a dropped owner's
// plugins are unverified, and the unverified limits apply to what they
// were granted.
func TestPolicyNarrowsTrustAndGrants(t *testing.T) {
	s := mustLoad(t, teamConfig, "[trust]\nowners = [\"good-org\"]\n[capabilities]\nunverified = [\"store\"]\n[hooks]\nunverified = false\n")
	tr, dropped := s.Trust()
	if !slices.Equal(tr.Orgs, []string{"Good-Org"}) || len(tr.Users) != 0 || len(dropped) != 2 || dropped[0].Item != "trust" {
		t.Fatalf("trust %+v, dropped %+v", tr, dropped)
	}
	g := s.Grants(evil)
	if g.Tier != trust.Unverified || !g.Capabilities.Equal(manifest.Capabilities{Store: true}) || g.Hooks {
		t.Errorf("evil: %+v", g)
	}
	var items []string
	for _, d := range g.Denied {
		items = append(items, d.Item)
	}
	if !slices.Equal(items, []string{"exec", "hooks"}) {
		t.Errorf("denied %v, want exec and hooks", items)
	}
	if g := s.Grants(good); g.Tier != trust.Team || !g.Capabilities.Equal(good.Capabilities) || len(g.Denied) != 0 {
		t.Errorf("good: %+v", g)
	}

	// Without the policy the same records are team, with all they were granted.
	s = mustLoad(t, teamConfig, "")
	if g := s.Grants(evil); g.Tier != trust.Team || !g.Capabilities.Equal(evil.Capabilities) || !g.Hooks || len(g.Denied) != 0 {
		t.Errorf("evil without a policy: %+v", g)
	}
}

// A policy that cannot be read is an error, but the settings of
// config.toml alone come with it, for commands that only describe.
func TestInvalidPolicy(t *testing.T) {
	s, err := load(t, teamConfig, "[capabilities]\nunverified = [\"teleport\"]\n")
	var inv *policy.InvalidError
	if !errors.As(err, &inv) || s == nil {
		t.Fatalf("got %v, %v; want the settings and a *policy.InvalidError", s, err)
	}
	if s.Policy() != nil || s.Tier(evil) != trust.Team {
		t.Errorf("config.toml alone: policy %v, tier %s", s.Policy(), s.Tier(evil))
	}
	if _, err := load(t, "[trust\n", ""); err == nil {
		t.Error("an undecodable config.toml loaded")
	}
}

// The tier of a record: its URL, or for a record the Rust fledge wrote
// (no kind, no URL) its source as the policy's rules read it.
func TestRecordTier(t *testing.T) {
	tc := trust.Config{Users: []string{"alice"}}
	for _, c := range []struct {
		p    lockfile.Plugin
		want trust.Tier
	}{
		{lockfile.Plugin{Kind: lockfile.KindGit, URL: "https://github.com/alice/x", Source: "alice/x"}, trust.Team},
		{lockfile.Plugin{Kind: lockfile.KindGit, URL: "https://github.com/CorvidLabs/x", Source: "CorvidLabs/x"}, trust.Official},
		{lockfile.Plugin{Kind: lockfile.KindGit, URL: "file:///srv/alice/x", Source: "alice/x"}, trust.Unverified},
		{lockfile.Plugin{Kind: lockfile.KindLocalLink, Source: "/src/x"}, trust.Local},
		{lockfile.Plugin{Kind: lockfile.KindLocalCopy, Source: "./x"}, trust.Local},
		{lockfile.Plugin{Source: "alice/x"}, trust.Team},
		{lockfile.Plugin{Source: "bob/x"}, trust.Unverified},
		{lockfile.Plugin{Source: "/home/u/x"}, trust.Local},
		{lockfile.Plugin{Source: "https://github.com/CorvidLabs/x"}, trust.Official},
		{lockfile.Plugin{Source: "git@github.com:alice/x.git"}, trust.Team},
	} {
		if got := RecordTier(&c.p, tc); got != c.want {
			t.Errorf("%+v: %s, want %s", c.p, got, c.want)
		}
	}
}

// The nil Settings is no configuration and no policy.
func TestNil(t *testing.T) {
	var s *Settings
	if g := s.Grants(evil); g.Tier != trust.Unverified || !g.Capabilities.Equal(evil.Capabilities) || !g.Hooks {
		t.Errorf("nil settings: %+v", g)
	}
	if s.Policy() != nil || s.Config() == nil || s.Files() != nil {
		t.Error("nil settings have something")
	}
}

package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
)

// grantFixture installs an unverified git plugin that requests exec,
// store, network, an unknown filesystem scope and a post_remove hook,
// granted nothing, and returns its env and the plugins.toml bytes.
func grantFixture(t *testing.T) (*env, []byte) {
	t.Helper()
	e := newEnv(t)
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", "\n[capabilities]\nexec = true\nstore = true\nnetwork = true\nfilesystem = \"home\"\n\n[hooks]\npost_remove = \"true\"\n"), "")
	if _, err := e.installer(Consent{Grant: map[string]bool{}}).Install(context.Background(), g.url); err != nil {
		t.Fatalf("Install: %v\n%s", err, e.log)
	}
	before, err := os.ReadFile(e.paths.PluginsFile())
	if err != nil {
		t.Fatal(err)
	}
	return e, before
}

func TestChangeGrants(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	cases := []struct {
		name string
		ch   GrantChange
		// granted is the grants after, as grant names; consent how each
		// changed item was approved.
		granted []string
		consent map[string]string
		// missing expects an *ApprovalError naming these; notRequested a
		// *NotRequestedError for this item; fails any other error.
		missing      []string
		notRequested string
		fails        bool
	}{
		{name: "named exec on unverified", ch: GrantChange{Grant: []string{"exec"}},
			granted: []string{"exec"}, consent: map[string]string{"exec": ConsentNamed}},
		{name: "short name", ch: GrantChange{Plugin: "hello", Grant: []string{"store"}},
			granted: []string{"store"}, consent: map[string]string{"store": ConsentNamed}},
		{name: "yes alone withholds what only naming grants", ch: GrantChange{Yes: true},
			missing: []string{"exec", "network", "filesystem", "hooks"}},
		{name: "yes with the rest named", ch: GrantChange{Yes: true, Grant: []string{"exec", "network", "filesystem", "hooks"}},
			granted: []string{"exec", "store", "network", "filesystem", "hooks"},
			consent: map[string]string{"exec": ConsentNamed, "store": ConsentYes, "network": ConsentNamed, "filesystem": ConsentNamed, "hooks": ConsentNamed}},
		{name: "terminal", ch: GrantChange{Grant: []string{"exec"}, Interactive: true},
			granted: []string{"exec"}, consent: map[string]string{"exec": ConsentTerminal}},
		{name: "not requested", ch: GrantChange{Grant: []string{"exec", "metadata"}}, notRequested: "metadata"},
		{name: "revoke what is not granted", ch: GrantChange{Revoke: []string{"exec"}}, granted: nil, consent: map[string]string{}},
		{name: "revoke what it never requested", ch: GrantChange{Revoke: []string{"metadata"}}, notRequested: "metadata"},
		{name: "grant and revoke one item", ch: GrantChange{Grant: []string{"exec"}, Revoke: []string{"exec"}}, fails: true},
		{name: "none", ch: GrantChange{Grant: []string{"none"}}, fails: true},
		{name: "nothing", ch: GrantChange{}, fails: true},
		{name: "unknown capability", ch: GrantChange{Grant: []string{"sudo"}}, fails: true},
		{name: "not installed", ch: GrantChange{Plugin: "nosuch", Grant: []string{"exec"}}, fails: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, before := grantFixture(t)
			if tc.ch.Plugin == "" {
				tc.ch.Plugin = name
			}
			res, err := e.installer(Consent{}).ChangeGrants(tc.ch)
			after, _ := os.ReadFile(e.paths.PluginsFile())
			if tc.missing != nil || tc.notRequested != "" || tc.fails {
				var ae *ApprovalError
				var nr *NotRequestedError
				switch {
				case tc.missing != nil && (!errors.As(err, &ae) || !reflect.DeepEqual(ae.Missing, tc.missing)):
					t.Errorf("err %v, want an approval error for %q", err, tc.missing)
				case tc.notRequested != "" && (!errors.As(err, &nr) || nr.Item != tc.notRequested ||
					!reflect.DeepEqual(nr.Requested, []string{"exec", "store", "network", "filesystem", "hooks"})):
					t.Errorf("err %v, want NotRequestedError for %s naming what it requests", err, tc.notRequested)
				case err == nil:
					t.Errorf("ChangeGrants = %+v, want an error", res)
				}
				if string(after) != string(before) {
					t.Errorf("a refused change wrote plugins.toml")
				}
				return
			}
			if err != nil {
				t.Fatalf("ChangeGrants: %v", err)
			}
			p, _ := e.entry(t, name)
			got := Grants{Capabilities: p.Capabilities, Hooks: p.Hooks}
			if !reflect.DeepEqual(got.Items(), tc.granted) || !reflect.DeepEqual(res.After.Items(), tc.granted) {
				t.Errorf("granted %q (result %q), want %q", got.Items(), res.After.Items(), tc.granted)
			}
			if !reflect.DeepEqual(res.Consent, tc.consent) {
				t.Errorf("consent %v, want %v", res.Consent, tc.consent)
			}
			if slicesHave(tc.granted, "filesystem") && p.Capabilities.Filesystem != "home" {
				t.Errorf("filesystem scope %q, want the requested home", p.Capabilities.Filesystem)
			}
			if slicesHave(tc.granted, "hooks") && !reflect.DeepEqual(p.Hooks, map[string]string{manifest.HookPostRemove: "true"}) {
				t.Errorf("hooks %v, want the declared post_remove", p.Hooks)
			}
			if !res.Changed() && string(after) != string(before) {
				t.Errorf("a change that changed nothing wrote plugins.toml")
			}
		})
	}
}

func slicesHave(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// A grant reads what the installed plugin.toml requests, and only the one
// approved: an edited copy is refused, an edited live link is read as it
// is, and a hook that cannot be shown is never approved.
func TestChangeGrantsReadsTheInstalledManifest(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	t.Run("edited copy", func(t *testing.T) {
		t.Parallel()
		e, before := grantFixture(t)
		mf := filepath.Join(e.paths.PluginDir(name), manifest.FileName)
		writeFile(t, mf, pluginFiles("1.0.0", "\n[capabilities]\nexec = true\nmetadata = true\n")["plugin.toml"], 0o644)
		_, err := e.installer(Consent{}).ChangeGrants(GrantChange{Plugin: name, Grant: []string{"metadata"}})
		var me *InstalledManifestError
		if !errors.As(err, &me) || !me.Changed {
			t.Errorf("err %v, want InstalledManifestError{Changed}", err)
		}
		if after, _ := os.ReadFile(e.paths.PluginsFile()); string(after) != string(before) {
			t.Errorf("plugins.toml written")
		}
	})
	t.Run("live link", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		dir := t.TempDir()
		testutil.WriteTree(t, dir, pluginFiles("1.0.0", "\n[capabilities]\nstore = true\n"))
		if _, err := e.installer(Consent{Yes: true}).Install(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, manifest.FileName), pluginFiles("1.0.0", "\n[capabilities]\nexec = true\n\n[hooks]\npost_remove = \"printf '\\u001b]2;x\\u0007'\"\n")["plugin.toml"], 0o644)
		in := e.installer(Consent{})
		if _, err := in.ChangeGrants(GrantChange{Plugin: name, Grant: []string{"exec"}}); err != nil {
			t.Errorf("grant of what the live manifest requests: %v", err)
		}
		// store is no longer requested but still granted: it can be revoked.
		if _, err := in.ChangeGrants(GrantChange{Plugin: name, Revoke: []string{"store"}}); err != nil {
			t.Errorf("revoke of a grant the manifest dropped: %v", err)
		}
		_, err := in.ChangeGrants(GrantChange{Plugin: name, Grant: []string{"hooks"}})
		var ue *UnsafeCommandError
		if !errors.As(err, &ue) {
			t.Errorf("granting a hook that hides escape codes: %v, want UnsafeCommandError", err)
		}
		p, _ := e.entry(t, name)
		if len(p.Hooks) != 0 || !p.Capabilities.Exec || p.Capabilities.Store {
			t.Errorf("recorded %+v / hooks %v", p.Capabilities, p.Hooks)
		}
	})
}

// Environment variables are granted whole (environment: every entry the
// manifest lists) or one by one (env:NAME, a name its entries cover), and
// revoked one by one; a plugin that lists none may be granted any name by
// naming it; --yes never grants them to an unverified source; a name a
// prefix grants is revoked by revoking the prefix.
func TestChangeGrantsEnvironment(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	install := func(t *testing.T, caps string) *env {
		e := newEnv(t)
		g := newGitRepo(t)
		g.commit(t, pluginFiles("1.0.0", "\n[capabilities]\n"+caps+"\n"), "")
		if _, err := e.installer(Consent{Grant: map[string]bool{}}).Install(context.Background(), g.url); err != nil {
			t.Fatalf("Install: %v\n%s", err, e.log)
		}
		return e
	}
	granted := func(t *testing.T, e *env) []string {
		p, _ := e.entry(t, name)
		return (Grants{Capabilities: p.Capabilities}).Items()
	}
	change := func(t *testing.T, e *env, ch GrantChange) (*GrantResult, error) {
		ch.Plugin = name
		return e.installer(Consent{}).ChangeGrants(ch)
	}

	e := install(t, `store = true`+"\n"+`environment = ["GITHUB_TOKEN", "AWS_*"]`)
	var ae *ApprovalError
	if _, err := change(t, e, GrantChange{Yes: true}); !errors.As(err, &ae) || !reflect.DeepEqual(ae.Missing, []string{"environment"}) {
		t.Errorf("--yes on an unverified source: %v, want environment withheld", err)
	}
	var nr *NotRequestedError
	if _, err := change(t, e, GrantChange{Grant: []string{"env:HOME_SECRET"}}); !errors.As(err, &nr) || nr.Item != "env:HOME_SECRET" {
		t.Errorf("a name it does not list: %v", err)
	}
	res, err := change(t, e, GrantChange{Grant: []string{"env:GITHUB_TOKEN", "env:AWS_REGION"}})
	if err != nil || !reflect.DeepEqual(res.Granted, []string{"env:AWS_REGION", "env:GITHUB_TOKEN"}) || res.Consent["env:GITHUB_TOKEN"] != ConsentNamed {
		t.Fatalf("env: grants: %+v, %v", res, err)
	}
	if got := granted(t, e); !reflect.DeepEqual(got, []string{"env:AWS_REGION", "env:GITHUB_TOKEN"}) {
		t.Errorf("granted %q", got)
	}
	if res, err := change(t, e, GrantChange{Grant: []string{"environment"}}); err != nil || !reflect.DeepEqual(res.Granted, []string{"environment"}) {
		t.Fatalf("environment: %+v, %v", res, err)
	}
	if got := granted(t, e); !reflect.DeepEqual(got, []string{"env:AWS_*", "env:AWS_REGION", "env:GITHUB_TOKEN"}) {
		t.Errorf("granted %q", got)
	}
	if res, _ := change(t, e, GrantChange{Grant: []string{"environment"}}); res == nil || !reflect.DeepEqual(res.Unchanged, []string{"environment"}) {
		t.Errorf("environment again: %+v", res)
	}
	if _, err := change(t, e, GrantChange{Revoke: []string{"env:AWS_SECRET_ACCESS_KEY"}}); err == nil || !strings.Contains(err.Error(), "revoke env:AWS_*") {
		t.Errorf("revoking a name a prefix grants: %v", err)
	}
	if res, err := change(t, e, GrantChange{Revoke: []string{"env:AWS_*", "env:GITHUB_TOKEN"}}); err != nil || !reflect.DeepEqual(res.Revoked, []string{"env:AWS_*", "env:GITHUB_TOKEN"}) {
		t.Fatalf("revoke: %+v, %v", res, err)
	}
	if got := granted(t, e); !reflect.DeepEqual(got, []string{"env:AWS_REGION"}) {
		t.Errorf("after revoke, granted %q", got)
	}
	if res, err := change(t, e, GrantChange{Revoke: []string{"environment"}}); err != nil || !reflect.DeepEqual(res.Revoked, []string{"environment"}) {
		t.Fatalf("revoke environment: %+v, %v", res, err)
	}
	if got := granted(t, e); len(got) != 0 {
		t.Errorf("after revoking environment, granted %q", got)
	}
	if _, err := ParseGrants([]string{"env:BAD-NAME"}); err == nil {
		t.Error("env:BAD-NAME parsed")
	}

	rust := install(t, `store = true`)
	if res, err := change(t, rust, GrantChange{Grant: []string{"env:DATABASE_URL"}}); err != nil || !reflect.DeepEqual(res.Granted, []string{"env:DATABASE_URL"}) {
		t.Fatalf("a plugin that lists none, granted a name: %+v, %v", res, err)
	}
	if got := granted(t, rust); !reflect.DeepEqual(got, []string{"env:DATABASE_URL"}) {
		t.Errorf("granted %q", got)
	}
}

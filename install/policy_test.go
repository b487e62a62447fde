package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/settings"
)

func mustPolicy(t *testing.T, text string) *policy.Set {
	t.Helper()
	path := t.TempDir() + "/policy.toml"
	writeFile(t, path, text, 0o644)
	s, err := policy.Load(policy.Inputs{System: path})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// How install's consent meets the policy: what was named (or is needed)
// and is forbidden is refused; what only --yes approved is left out; the
// approval form never offers it.
func TestInstallUnderPolicy(t *testing.T) {
	t.Parallel()
	caps := "[capabilities]\nexec = true\nstore = true\nmetadata = true\n"
	cases := []struct {
		name    string
		policy  string
		hooks   string
		consent Consent
		refused string // the item refused, "" when it installs
		granted manifest.Capabilities
		hooksOK bool
	}{
		{name: "named exec refused", policy: "[capabilities]\nunverified = [\"store\"]\n",
			consent: Consent{Grant: grants("exec", "store")}, refused: "exec"},
		{name: "yes leaves exec out", policy: "[capabilities]\nunverified = [\"store\", \"metadata\"]\n",
			consent: Consent{Yes: true}, granted: manifest.Capabilities{Store: true, Metadata: true}},
		{name: "yes and named store", policy: "[capabilities]\nunverified = [\"store\"]\n",
			consent: Consent{Yes: true, Grant: grants("store")}, granted: manifest.Capabilities{Store: true}},
		{name: "a needed build is refused, even named", policy: "[hooks]\nunverified = false\n", hooks: "[hooks]\nbuild = \"true\"\n",
			consent: Consent{Yes: true, Grant: grants("exec", "hooks")}, refused: "hooks"},
		{name: "a needed build is refused under yes", policy: "[hooks]\nunverified = false\n", hooks: "[hooks]\nbuild = \"true\"\n",
			consent: Consent{Yes: true}, refused: "hooks"},
		{name: "an optional hook is left out", policy: "[hooks]\nunverified = false\n", hooks: "[hooks]\npost_remove = \"true\"\n",
			consent: Consent{Yes: true, Grant: grants("exec")}, granted: manifest.Capabilities{Exec: true, Store: true, Metadata: true}},
		{name: "hooks allowed", policy: "[hooks]\nunverified = true\n", hooks: "[hooks]\npost_remove = \"true\"\n",
			consent: Consent{Grant: grants("hooks")}, hooksOK: true},
		{name: "the form is not offered exec", policy: "[capabilities]\nunverified = [\"store\", \"metadata\"]\n",
			consent: Consent{Ask: func(r Request) (Decision, error) {
				if r.Capabilities.Exec {
					return Decision{}, errors.New("the form offered exec")
				}
				return Decision{Capabilities: r.Capabilities}, nil
			}}, granted: manifest.Capabilities{Store: true, Metadata: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			g := newGitRepo(t)
			g.commit(t, pluginFiles("1.0.0", c.hooks+caps), "")
			in := e.installer(c.consent)
			in.Settings = settings.New(nil, mustPolicy(t, c.policy))
			res, err := in.Install(context.Background(), g.url)
			var de *policy.DeniedError
			if c.refused != "" {
				if !errors.As(err, &de) || de.Denials[0].Item != c.refused || de.Denials[0].File == "" {
					t.Fatalf("want %s refused by the policy, got %v", c.refused, err)
				}
				if _, ok := e.entry(t, "fledge-plugin-hello"); ok {
					t.Fatal("installed anyway")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !res.Entry.Capabilities.Equal(c.granted) || (len(res.Entry.Hooks) > 0) != c.hooksOK {
				t.Errorf("granted %+v hooks %v, want %+v hooks %v", res.Entry.Capabilities, res.Entry.Hooks, c.granted, c.hooksOK)
			}
		})
	}
}

// A lightweight tag is as old as its commit's committer date; the cooldown
// is measured against the Installer's clock.
func TestInstallTagCooldown(t *testing.T) {
	t.Parallel()
	g := newGitRepo(t)
	g.commit(t, pluginFiles("1.0.0", ""), "v1.0.0") // committed 2026-01-01; the clock says 2026-02-03
	for age, ok := range map[string]bool{"40d": false, "30d": true} {
		e := newEnv(t)
		in := e.installer(Consent{Yes: true})
		in.Settings = settings.New(nil, mustPolicy(t, "[pins]\nmin_tag_age = \""+age+"\"\n"))
		_, err := in.Install(context.Background(), g.url+"@v1.0.0")
		var de *policy.DeniedError
		switch {
		case ok && err != nil:
			t.Errorf("%s: %v", age, err)
		case !ok && (!errors.As(err, &de) || de.Denials[0].Item != "tag_age" || !strings.Contains(de.Error(), "is only 33d")):
			t.Errorf("%s: want a tag_age refusal, got %v", age, err)
		}
	}
}

// A post_remove hook approved at install does not run once the policy
// forbids the plugin's hooks, or cannot be read; the plugin is removed all
// the same (removing only narrows), and the grant log says why.
func TestRemoveUnderPolicySkipsHooks(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	for name, setup := range map[string]func(t *testing.T, r *Remover){
		"forbidden": func(t *testing.T, r *Remover) {
			r.Settings = settings.New(nil, mustPolicy(t, "[hooks]\nunverified = false\n"))
		},
		"unreadable": func(t *testing.T, r *Remover) { r.PolicyErr = errors.New("policy /p.toml: line 1: unknown key x") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			g := newGitRepo(t)
			marker := filepath.Join(t.TempDir(), "marker")
			files := pluginFiles("1.0.0", "\n[hooks]\npost_remove = \"touch "+marker+"\"\n")
			g.commit(t, files, "")
			if _, err := e.installer(Consent{Grant: grants("hooks")}).Install(context.Background(), g.url); err != nil {
				t.Fatal(err)
			}
			r := e.remover()
			r.Journal = grantlog.New(e.paths.GrantLog())
			setup(t, r)
			if _, err := r.Remove(context.Background(), "fledge-plugin-hello"); err != nil {
				t.Fatal(err)
			}
			assertGone(t, e)
			if _, err := os.Stat(marker); err == nil {
				t.Error("post_remove ran")
			}
			if !strings.Contains(e.log.String(), "post_remove hook is not run") {
				t.Errorf("not said: %s", e.log)
			}
			var recs []grantlog.Record
			if _, err := grantlog.Read(e.paths.GrantLog(), nil, func(r grantlog.Record) error { recs = append(recs, r); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 || recs[0].Action != grantlog.ActionRemove ||
				(name == "forbidden" && (len(recs[0].Policy) != 1 || recs[0].Consent["hooks"] != grantlog.ConsentPolicy)) ||
				(name == "unreadable" && !strings.Contains(recs[0].Note, "cannot be read")) {
				t.Errorf("%+v", recs)
			}
		})
	}
}

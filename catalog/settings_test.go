package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/trust"
)

// TestToolsFollowTheSettings: a tool's tier and grants are what the
// settings decide for its plugin (config.toml's trust narrowed by the
// admin policy, the recorded grants narrowed for that tier), read-only
// follows the grants that remain, and the catalog's inputs name the
// policy's files, so a watcher reloads when the policy changes.
func TestToolsFollowTheSettings(t *testing.T) {
	dir := t.TempDir()
	paths, err := home.New(filepath.Join(dir, "fh"))
	if err != nil {
		t.Fatal(err)
	}
	store := lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock())
	err = store.Update(func(f *lockfile.File) error {
		f.Put(lockfile.Plugin{Name: "fledge-plugin-x", Kind: lockfile.KindGit, Source: "acme/fledge-plugin-x",
			URL: "https://github.com/acme/fledge-plugin-x", Protocol: manifest.ProtocolV1, Commands: []string{"x"},
			CommandDetails: []manifest.Command{{Name: "x"}}, Capabilities: manifest.Capabilities{Exec: true, Store: true}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(paths.ConfigFile(), "[trust]\norgs = [\"acme\"]\n")
	pol := filepath.Join(dir, "policy.toml")
	in := settings.Inputs{ConfigFile: paths.ConfigFile(), EnvPolicy: pol}
	tool := func() (*Tool, []string) {
		t.Helper()
		s, err := settings.Load(in)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Load(paths, s)
		if err != nil || len(c.Tools) != 1 {
			t.Fatalf("%v %+v", err, c)
		}
		return c.Tools[0], c.Inputs
	}

	write(pol, "")
	x, inputs := tool()
	if x.Tier != trust.Team || !x.Grants.Equal(manifest.Capabilities{Exec: true, Store: true}) || x.ReadOnly {
		t.Errorf("without a rule: %s %+v read-only %v", x.Tier, x.Grants, x.ReadOnly)
	}
	if !slices.Equal(inputs, []string{paths.PluginsFile(), paths.ConfigFile(), pol}) {
		t.Errorf("inputs %v", inputs)
	}

	write(pol, "[trust]\nowners = []\n[capabilities]\nunverified = [\"store\"]\n")
	x, _ = tool()
	if x.Tier != trust.Unverified || !x.Grants.Equal(manifest.Capabilities{Store: true}) || !x.ReadOnly {
		t.Errorf("under the policy: %s %+v read-only %v", x.Tier, x.Grants, x.ReadOnly)
	}
}

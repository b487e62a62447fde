package cli

import (
	"fmt"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// seedDirs are the read-only seed directories FLEDGE_SEED_DIR lists.
func seedDirs(f *Factory) []string { return fastrun.SeedDirs(f.Getenv) }

// seededPlugins lists the plugins of the seeds that FLEDGE_HOME does not
// have (the first seed's wins, as at run time), each with its seed.
func seededPlugins(f *Factory, seeds []string, home *lockfile.File, set *settings.Settings) []pluginJSON {
	out := []pluginJSON{}
	seen := map[string]bool{}
	for _, p := range home.Plugins {
		seen[p.Name] = true
	}
	for _, dir := range seeds {
		lf, err := lockfile.LoadFile(filepath.Join(dir, "plugins.toml"))
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "warning: seed %s: %s\n", termsafe.Escape(dir), errorText(err.Error()))
			continue
		}
		for _, p := range sortedPlugins(lf) {
			if seen[p.Name] {
				continue
			}
			seen[p.Name] = true
			pj := toPluginJSON(p, set.Grants(p), unconfinedFor(f, p))
			pj.Seed = dir
			out = append(out, pj)
		}
	}
	return out
}

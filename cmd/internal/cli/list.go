package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type listOptions struct{ JSON bool }

// listCacheKind names list's document among derived files.
const listCacheKind = "plugins list --json"

func newListCmd(f *Factory) *cobra.Command {
	opts := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List installed plugins",
		Args:  noArgs,
		RunE:  func(c *cobra.Command, args []string) error { return listRun(f, opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}

type listDoc struct {
	SchemaVersion int          `json:"schema_version"`
	Plugins       []pluginJSON `json:"plugins"`
}

func listRun(f *Factory, opts *listOptions) error {
	store, paths, err := f.Lockfile()
	if err != nil {
		return err
	}
	// The JSON document is a pure function of plugins.toml and
	// config.toml: scripts and agents that list often get it from a
	// derived file, after hashing the two (see package derived).
	if opts.JSON {
		pd, ok1 := derived.DigestFile(store.Path(), lockfile.MaxSize)
		cd, ok2 := derived.DigestFile(paths.ConfigFile(), config.MaxSize)
		if ok1 && ok2 {
			if hit, err := derived.New(paths.ListCacheFile(), listCacheKind, pd, cd).CopyTo(f.IO.Out); hit {
				return err
			}
		}
	}
	raw, err := store.Read()
	if err != nil {
		return err
	}
	cfgRaw, err := config.Read(paths.ConfigFile())
	if err != nil {
		return err
	}
	file, err := store.Decode(raw)
	if err != nil {
		return err
	}
	cfg, err := config.Decode(paths.ConfigFile(), cfgRaw)
	if err != nil {
		return err
	}
	t := trustConfig(cfg)
	doc := listDoc{SchemaVersion: SchemaVersion, Plugins: make([]pluginJSON, 0, len(file.Plugins))}
	for _, p := range sortedPlugins(file) {
		doc.Plugins = append(doc.Plugins, toPluginJSON(p, t))
	}
	if opts.JSON {
		out, err := renderJSON(doc)
		if err != nil {
			return err
		}
		if _, err := f.IO.Out.Write(out); err != nil {
			return err
		}
		// Keyed on the bytes just decoded, whatever the files hold now.
		// With no plugins.toml there is nothing worth keeping.
		if raw != nil {
			derived.New(paths.ListCacheFile(), listCacheKind, derived.Sum(raw), derived.Sum(cfgRaw)).Put(out)
		}
		return nil
	}
	if len(doc.Plugins) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No plugins installed. Install one with: fledge plugins install <source>")
		return nil
	}
	st := f.IO.OutStyle()
	rows := [][]tableCell{{{"NAME", st.Dim}, {"VERSION", st.Dim}, {"TIER", st.Dim}, {"COMMANDS", st.Dim}, {"SOURCE", st.Dim}}}
	for _, p := range doc.Plugins {
		src := p.Source
		if p.PinnedRef != nil {
			src += "@" + *p.PinnedRef
		}
		rows = append(rows, []tableCell{{termsafe.Escape(p.Name), st.Bold}, plain(termsafe.Escape(p.Version)), {p.TrustTier, st.Tier},
			plain(termsafe.Escape(strings.Join(p.Commands, ", "))), plain(termsafe.Escape(src))})
	}
	return writeTable(f.IO.Out, rows)
}

// loadState reads plugins.toml and config.toml.
func loadState(f *Factory) (*lockfile.File, *config.Config, error) {
	store, paths, err := f.Lockfile()
	if err != nil {
		return nil, nil, err
	}
	file, err := store.Load()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(paths.ConfigFile())
	if err != nil {
		return nil, nil, err
	}
	return file, cfg, nil
}

// sortedPlugins returns the entries ordered by name.
func sortedPlugins(file *lockfile.File) []*lockfile.Plugin {
	out := make([]*lockfile.Plugin, len(file.Plugins))
	for i := range file.Plugins {
		out[i] = &file.Plugins[i]
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type listOptions struct {
	Names []string
	JSON  bool
}

func newListCmd(f *Factory) *cobra.Command {
	opts := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list [<name>...]",
		Short: "List installed plugins (all, or those named)",
		RunE: func(c *cobra.Command, args []string) error {
			opts.Names = args
			return listRun(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	cmd.ValidArgsFunction = completePluginNames(f, true)
	return cmd
}

type listDoc struct {
	SchemaVersion int          `json:"schema_version"`
	Plugins       []pluginJSON `json:"plugins"`
	// Externals are fledge-<name> programs on PATH (fledge's addition).
	Externals []externalJSON `json:"externals"`
}

func listRun(f *Factory, opts *listOptions) error {
	store, paths, err := f.Lockfile()
	if err != nil {
		return err
	}
	// The JSON document is kept as a derived file (fastrun.ListKey, which
	// fastrun serves too).
	key := fastrun.NewListKey(paths, f.Getenv, f.SystemPolicy)
	rawExt, polOK, seeds := key.Externals, key.OK, seedDirs(f)
	if opts.JSON && len(opts.Names) == 0 {
		if hit, err := key.ServeList(f.IO.Out, paths, derived.Identity()); hit {
			return err
		}
	}
	raw, err := store.Read()
	if err != nil {
		return err
	}
	file, err := store.Decode(raw)
	if err != nil {
		return err
	}
	// Tiers and grants are those the settings decide, as everywhere; a
	// policy that cannot be read is said, and the document not kept.
	set, perr, err := describeSettings(f, paths)
	if err != nil {
		return err
	}
	if perr != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", errorText(perr.Error()))
		polOK = false
	}
	// Revocation lists are read from files the key does not hash: the
	// document is not kept while the policy names any.
	if set.Policy().HasRevocation() {
		polOK = false
	}
	cfgRaw := set.ConfigData()
	plugins, err := namedPlugins(file, opts.Names)
	if err != nil {
		return err
	}
	doc := listDoc{SchemaVersion: SchemaVersion, Plugins: make([]pluginJSON, 0, len(plugins)), Externals: externals(rawExt, file)}
	for _, p := range plugins {
		doc.Plugins = append(doc.Plugins, toPluginJSON(p, set.Grants(p), unconfinedFor(f, p)))
	}
	if len(opts.Names) == 0 {
		doc.Plugins = append(doc.Plugins, seededPlugins(f, seeds, file, set)...)
	}
	if opts.JSON && len(opts.Names) > 0 {
		return writeJSON(f.IO.Out, doc)
	}
	if opts.JSON {
		out, err := fastrun.RenderJSON(doc)
		if err != nil {
			return err
		}
		if _, err := f.IO.Out.Write(out); err != nil {
			return err
		}
		// Keyed on the bytes just decoded, whatever the files hold now.
		// With no plugins.toml there is nothing worth keeping.
		if raw != nil && polOK {
			key.File(paths, derived.Identity(), derived.Sum(raw), derived.Sum(cfgRaw)).Put(out)
		}
		return nil
	}
	if len(doc.Plugins) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "No plugins installed. Install one with: fledge plugins install <source>")
		printExternals(f.IO.Out, doc.Externals)
		return nil
	}
	st := f.IO.OutStyle()
	rows := [][]tableCell{{{"NAME", st.Dim}, {"VERSION", st.Dim}, {"TIER", st.Dim}, {"COMMANDS", st.Dim}, {"SOURCE", st.Dim}}}
	for _, p := range doc.Plugins {
		src := p.Source
		if p.PinnedRef != nil {
			src += "@" + *p.PinnedRef
		}
		cmds := termsafe.Escape(strings.Join(p.Commands, ", "))
		if p.Disabled {
			cmds = "(disabled) " + cmds
		}
		if p.Revoked != nil {
			cmds = "(revoked) " + cmds
		}
		rows = append(rows, []tableCell{{termsafe.Escape(p.Name), st.Bold}, plain(termsafe.Escape(p.Version)), {p.TrustTier, st.Tier},
			plain(cmds), plain(termsafe.Escape(src))})
	}
	if err := writeTable(f.IO.Out, rows); err != nil {
		return err
	}
	printExternals(f.IO.Out, doc.Externals)
	return nil
}

// loadState reads plugins.toml and config.toml, and returns the paths
// they were read from.
func loadState(f *Factory) (*lockfile.File, *config.Config, home.Paths, error) {
	store, paths, err := f.Lockfile()
	if err != nil {
		return nil, nil, home.Paths{}, err
	}
	file, err := store.Load()
	if err != nil {
		return nil, nil, home.Paths{}, err
	}
	cfg, err := config.Load(paths.ConfigFile())
	if err != nil {
		return nil, nil, home.Paths{}, err
	}
	return file, cfg, paths, nil
}

// namedPlugins returns the entries names name (a name or its short form
// each), ordered by name, or every entry when names is empty.
func namedPlugins(file *lockfile.File, names []string) ([]*lockfile.Plugin, error) {
	if len(names) == 0 {
		return sortedPlugins(file), nil
	}
	want := map[string]bool{}
	for _, n := range names {
		p, err := file.Resolve(n)
		if err != nil {
			return nil, err
		}
		want[p.Name] = true
	}
	var out []*lockfile.Plugin
	for _, p := range sortedPlugins(file) {
		if want[p.Name] {
			out = append(out, p)
		}
	}
	return out, nil
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

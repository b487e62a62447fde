package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type removeOptions struct {
	Name string
	JSON bool
}

func newRemoveCmd(f *Factory) *cobra.Command {
	opts := &removeOptions{}
	cmd := &cobra.Command{
		Use:     "remove <name>",
		Aliases: []string{"uninstall", "rm"},
		Short:   "Remove an installed plugin",
		Args:    exactArgs(1, "the plugin's name"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			return removeRun(c, f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON result")
	cmd.ValidArgsFunction = completePluginNames(f, false)
	return cmd
}

type removedJSON struct {
	Name     string   `json:"name"`
	Source   string   `json:"source"`
	Version  string   `json:"version"`
	Commands []string `json:"commands"`
}

type removeDoc struct {
	SchemaVersion int         `json:"schema_version"`
	Action        string      `json:"action"`
	Removed       removedJSON `json:"removed"`
}

func removeRun(c *cobra.Command, f *Factory, opts *removeOptions) error {
	store, paths, err := f.Lockfile()
	if err != nil {
		return err
	}
	// A policy that cannot be read never stops a removal (removing only
	// narrows); it stops the plugin's post_remove hook, which runs code.
	set, polErr := loadSettings(f, paths)
	r := &install.Remover{Paths: paths, Store: store, Log: f.IO.ErrOut, Settings: noteTrust(f.IO.ErrOut, set),
		PolicyErr: polErr, Journal: grantLog(f, paths)}
	p, err := r.Remove(c.Context(), opts.Name)
	if err != nil {
		return err
	}
	cmds := p.Commands
	if cmds == nil {
		cmds = []string{}
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, removeDoc{SchemaVersion: SchemaVersion, Action: "remove",
			Removed: removedJSON{Name: p.Name, Source: p.Source, Version: p.Version, Commands: cmds}})
	}
	fmt.Fprintf(f.IO.Out, "%s Removed %s %s\n", f.IO.OutStyle().OK("✓"), termsafe.Escape(p.Name), termsafe.Escape(p.Version))
	return nil
}

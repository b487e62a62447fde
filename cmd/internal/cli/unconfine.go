package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// Turning kernel confinement off for one plugin is its own pair of
// commands, not a grant item: grant items are what a plugin's manifest
// requests and the admin policy limits per tier, and a plugin never
// requests to run unconfined. Like a grant it is recorded in the plugin's
// plugins.toml record and in the grant log (who and when).

type confineOptions struct {
	Name string
	JSON bool
}

// confineDoc is the result of confine and unconfine.
type confineDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Action        string `json:"action"`
	Plugin        string `json:"plugin"`
	Version       string `json:"version"`
	// Changed is false when the plugin already was so.
	Changed bool `json:"changed"`
	// Unconfined says who turned confinement off for it and when ("" when
	// the kernel confines it again).
	Unconfined string `json:"unconfined"`
}

func newUnconfineCmd(f *Factory) *cobra.Command {
	return newConfineSwitchCmd(f, true)
}

func newConfineCmd(f *Factory) *cobra.Command {
	return newConfineSwitchCmd(f, false)
}

func newConfineSwitchCmd(f *Factory, off bool) *cobra.Command {
	opts := &confineOptions{}
	cmd := &cobra.Command{
		Use:   "confine <name>",
		Short: "Confine an installed native plugin by the kernel again, after unconfine",
		Long: `Turn kernel confinement back on for an installed native plugin that
'fledge plugins unconfine' turned it off for. The change is recorded in
plugins.toml and in the grant log, and applies from the plugin's next run.`,
		Example: "  fledge plugins confine hello",
	}
	if off {
		cmd.Use = "unconfine <name>"
		cmd.Short = "Run an installed native plugin without kernel confinement, recorded"
		cmd.Long = `Turn kernel confinement off for one installed native plugin: its own code,
its hooks on update and removal, then run with your full privileges. The
change is recorded in the plugin's plugins.toml record and in the grant log
(who and when), and audit, info and list show it. 'fledge plugins confine'
turns it back on; FLEDGE_CONFINE=off is the switch for every plugin.

Refused where the admin policy says [confinement] allow_off = false.`
		cmd.Example = "  fledge plugins unconfine hello"
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErrorf("%s needs the plugin's name: fledge plugins %s <name>", c.Name(), c.Name())
		}
		return nil
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		opts.Name = args[0]
		in, err := grantInstaller(f, !off)
		if err != nil {
			return err
		}
		res, err := in.SetConfinement(opts.Name, off)
		if err != nil {
			return err
		}
		if opts.JSON {
			return writeJSON(f.IO.Out, confineDoc{SchemaVersion: SchemaVersion, Action: c.Name(), Plugin: res.Plugin,
				Version: res.Version, Changed: res.Changed, Unconfined: res.Unconfined})
		}
		name := termsafe.Escape(res.Plugin)
		switch {
		case off && res.Changed:
			fmt.Fprintf(f.IO.Out, "Kernel confinement is off for %s from its next run (recorded in the grant log); fledge plugins confine %s turns it back on.\n", name, name)
		case off:
			fmt.Fprintf(f.IO.Out, "Kernel confinement already is off for %s: turned off by %s.\n", name, termsafe.Line(res.Unconfined))
		case res.Changed:
			fmt.Fprintf(f.IO.Out, "Kernel confinement is on again for %s from its next run.\n", name)
		default:
			fmt.Fprintf(f.IO.Out, "Kernel confinement already is on for %s.\n", name)
		}
		return nil
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON result")
	cmd.ValidArgsFunction = completePluginNames(f, false)
	return cmd
}

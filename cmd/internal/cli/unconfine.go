package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Turning kernel confinement off for one plugin is its own pair of
// commands, not a grant item: grant items are what a plugin's manifest
// requests and the admin policy limits per tier, and a plugin never
// requests to run unconfined. Like a grant it is recorded in the plugin's
// plugins.toml record and in the grant log (who and when).

type confineOptions struct {
	Name string
	All  bool
	JSON bool
}

// confineDoc is the result of confine and unconfine.
type confineDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Action        string `json:"action"`
	// Plugin and Version are "" for --all.
	Plugin  string `json:"plugin"`
	Version string `json:"version"`
	// All is set for the switch of every plugin (--all).
	All bool `json:"all"`
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
		Use:   "confine <name> | --all",
		Short: "Confine an installed native plugin by the kernel again, after unconfine",
		Long: `Turn kernel confinement back on for an installed native plugin that
'fledge plugins unconfine' turned it off for, or with --all, for every
plugin after 'fledge plugins unconfine --all' (a plugin's own switch stays
as it is). The change is recorded in plugins.toml and in the grant log,
and applies from the plugin's next run.`,
		Example: "  fledge plugins confine hello\n  fledge plugins confine --all",
	}
	if off {
		cmd.Use = "unconfine <name> | --all"
		cmd.Short = "Run an installed native plugin without kernel confinement, recorded"
		cmd.Long = `Turn kernel confinement off for one installed native plugin, or with --all
for every one: its own code, its hooks and its build then run with your
full privileges and your whole environment. The change is recorded in
plugins.toml and in the grant log (who and when), and audit, info and list
show it. 'fledge plugins confine' (--all) turns it back on.
FLEDGE_CONFINE=off turns it off for one fledge process only, and every run
under it says so.

Refused where the admin policy says [confinement] allow_off = false.`
		cmd.Example = "  fledge plugins unconfine hello\n  fledge plugins unconfine --all"
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		switch {
		case opts.All && len(args) > 0:
			return usageErrorf("%s --all is for every plugin: name no plugin with it", c.Name())
		case !opts.All && len(args) != 1:
			return usageErrorf("%s needs the plugin's name, or --all for every plugin: fledge plugins %s <name>", c.Name(), c.Name())
		}
		return nil
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		in, err := grantInstaller(f, !off)
		if err != nil {
			return err
		}
		if opts.All {
			return confineAllRun(f, in, off, c.Name(), opts.JSON)
		}
		opts.Name = args[0]
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
	cmd.Flags().BoolVar(&opts.All, "all", false, "for every installed plugin (and every one installed later)")
	cmd.ValidArgsFunction = completePluginNames(f, false)
	return cmd
}

// confineAllRun turns confinement off (or back on) for every plugin.
func confineAllRun(f *Factory, in *install.Installer, off bool, action string, asJSON bool) error {
	res, err := in.SetConfinementAll(off)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(f.IO.Out, confineDoc{SchemaVersion: SchemaVersion, Action: action, All: true, Changed: res.Changed, Unconfined: res.Unconfined})
	}
	switch {
	case off && res.Changed:
		fmt.Fprintln(f.IO.Out, "Kernel confinement is off for every plugin from its next run (recorded in the grant log); fledge plugins confine --all turns it back on.")
	case off:
		fmt.Fprintf(f.IO.Out, "Kernel confinement already is off for every plugin: turned off by %s.\n", termsafe.Line(res.Unconfined))
	case res.Changed:
		fmt.Fprintln(f.IO.Out, "Kernel confinement is on again for every plugin from its next run (but those turned off one by one).")
	default:
		fmt.Fprintln(f.IO.Out, "Kernel confinement already is on for every plugin (but those turned off one by one).")
	}
	return nil
}

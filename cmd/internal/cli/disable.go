package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/termsafe"
)

type disableOptions struct {
	Name string
	JSON bool
}

// disableDoc is the result of disable and enable.
type disableDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Action        string `json:"action"`
	Plugin        string `json:"plugin"`
	Version       string `json:"version"`
	// Changed is false when the plugin already was so.
	Changed bool `json:"changed"`
	// Disabled says who disabled it and when ("" when enabled).
	Disabled string `json:"disabled"`
}

func newDisableCmd(f *Factory) *cobra.Command { return newDisableSwitchCmd(f, true) }

func newEnableCmd(f *Factory) *cobra.Command { return newDisableSwitchCmd(f, false) }

func newDisableSwitchCmd(f *Factory, off bool) *cobra.Command {
	opts := &disableOptions{}
	cmd := &cobra.Command{
		Use:   "enable <name>",
		Short: "Enable a disabled plugin again",
		Long: `Enable a plugin that 'fledge plugins disable' disabled: its commands, their
completion, its agent tools and its hooks are reachable again, and its
command links come back. The change is recorded in plugins.toml and in the
grant log.`,
		Example: "  fledge plugins enable hello",
	}
	if off {
		cmd.Use = "disable <name>"
		cmd.Short = "Disable an installed plugin: nothing of it runs until it is enabled"
		cmd.Long = `Disable an installed plugin without removing it: it keeps its files,
grants and data, but has no entry point. Its commands do not run (fledge
says it is disabled), are not completed or listed in help, are not offered
to agents as tools (fledge mcp, fledge plugins tools), and lose their links
in FLEDGE_HOME/bin; its hooks do not run, so it is not updated while
disabled, and removing it runs no post_remove hook. The change is made in
one locked transaction and recorded in the grant log (who and when); list,
info and audit show it. 'fledge plugins enable' undoes it.`
		cmd.Example = "  fledge plugins disable hello\n  fledge plugins list --json   # \"disabled\": true"
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErrorf("%s needs the plugin's name: fledge plugins %s <name>", c.Name(), c.Name())
		}
		return nil
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		opts.Name = args[0]
		// Disabling only narrows: it works under a policy that cannot be
		// read, as revoking does. Enabling does not.
		in, err := grantInstaller(f, off)
		if err != nil {
			return err
		}
		res, err := in.SetDisabled(opts.Name, off)
		if err != nil {
			return err
		}
		if opts.JSON {
			return writeJSON(f.IO.Out, disableDoc{SchemaVersion: SchemaVersion, Action: c.Name(), Plugin: res.Plugin,
				Version: res.Version, Changed: res.Changed, Disabled: res.Disabled})
		}
		name := termsafe.Escape(res.Plugin)
		switch {
		case off && res.Changed:
			fmt.Fprintf(f.IO.Out, "%s is disabled: none of its commands, tools or hooks runs (recorded in the grant log); fledge plugins enable %s undoes it.\n", name, name)
		case off:
			fmt.Fprintf(f.IO.Out, "%s already is disabled: by %s.\n", name, termsafe.Line(res.Disabled))
		case res.Changed:
			fmt.Fprintf(f.IO.Out, "%s is enabled again.\n", name)
		default:
			fmt.Fprintf(f.IO.Out, "%s already is enabled.\n", name)
		}
		return nil
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON result")
	cmd.ValidArgsFunction = completePluginNames(f, false)
	return cmd
}

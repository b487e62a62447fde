package cli

import (
	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
)

type revokeOptions struct {
	Name  string
	Items []string
	JSON  bool
}

func newRevokeCmd(f *Factory) *cobra.Command {
	opts := &revokeOptions{}
	cmd := &cobra.Command{
		Use:   "revoke <name> CAP...",
		Short: "Withdraw grants from an installed plugin, without reinstalling it",
		Long: `Withdraw capabilities (exec, store, metadata, network, filesystem,
environment), one environment variable (env:NAME), or the approval of its
hooks from an installed plugin. It applies from the plugin's next run: a
denied exec answers code 126, a denied store keeps nothing, denied metadata
is empty, a withdrawn variable is no longer in its environment. Revoking hooks means post_remove does not run when it is
removed, and an update asks again before any build or post_install hook runs.`,
		Example: `  fledge plugins revoke hello exec
  fledge plugins revoke fledge-plugin-deps store,metadata
  fledge plugins revoke pg env:DATABASE_URL`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageErrorf("revoke needs the plugin's name and what to revoke: fledge plugins revoke <name> CAP...")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name, opts.Items = args[0], args[1:]
			return revokeRun(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON result")
	cmd.ValidArgsFunction = completePluginThenCapabilities(f)
	return cmd
}

func revokeRun(f *Factory, opts *revokeOptions) error {
	items, err := parseItems(opts.Items)
	if err != nil {
		return err
	}
	in, err := grantInstaller(f, true)
	if err != nil {
		return err
	}
	res, err := in.ChangeGrants(install.GrantChange{Plugin: opts.Name, Revoke: items})
	if err != nil {
		return err
	}
	return printGrantChange(f, "revoke", res, opts.JSON)
}

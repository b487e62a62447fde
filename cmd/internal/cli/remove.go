package cli

import "github.com/spf13/cobra"

func newRemoveCmd(f *Factory) *cobra.Command {
	return &cobra.Command{Use: "remove"}
}

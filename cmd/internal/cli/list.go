package cli

import "github.com/spf13/cobra"

func newListCmd(f *Factory) *cobra.Command {
	return &cobra.Command{Use: "list"}
}

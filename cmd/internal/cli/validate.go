package cli

import "github.com/spf13/cobra"

func newValidateCmd(f *Factory) *cobra.Command {
	return &cobra.Command{Use: "validate"}
}

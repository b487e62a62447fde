package cli

import "github.com/spf13/cobra"

func newInstallCmd(f *Factory) *cobra.Command {
	return &cobra.Command{Use: "install"}
}

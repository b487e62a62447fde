package cli

import "github.com/spf13/cobra"

func newAuditCmd(f *Factory) *cobra.Command {
	return &cobra.Command{Use: "audit"}
}

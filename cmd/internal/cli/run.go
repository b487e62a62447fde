package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
)

// Placeholder until the runner lands: the runner owns this file.

func newRunCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "run <command> [--ni] [--json] [--timeout D] [--] [args...]",
		Short: "Run an installed plugin command",
		RunE: func(c *cobra.Command, args []string) error {
			return errors.New("not implemented yet")
		},
	}
}

func runPluginCommand(ctx context.Context, f *Factory, command string, args []string) error {
	return withCode(CodeUnknownCommand, errors.New("unknown command "+command), "run 'fledge plugins list' to see installed commands")
}

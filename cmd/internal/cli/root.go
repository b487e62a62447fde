package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
)

// Main runs fledge with args (without the program name) and returns the exit
// code. It never calls os.Exit, so tests run it in-process.
func Main(args []string, s *IOStreams, version string) int {
	f := NewFactory(s, version)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return run(ctx, f, args)
}

func run(ctx context.Context, f *Factory, args []string) int {
	if len(args) > 0 && isPluginCommand(args[0]) {
		err := runPluginCommand(ctx, f, args[0], args[1:])
		if err != nil {
			var ec *exitCodeError
			if !errors.As(err, &ec) {
				printError(f.IO, err, false)
			}
		}
		return exitCode(err)
	}

	root := newRootCmd(f)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	var ec *exitCodeError
	if !errors.As(err, &ec) {
		asJSON := false
		if cmd != nil {
			if fl := cmd.Flags().Lookup("json"); fl != nil && fl.Value.String() == "true" {
				asJSON = true
			}
		}
		if errors.As(err, new(*usageError)) && cmd != nil && !asJSON {
			printError(f.IO, err, false)
			fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		} else {
			printError(f.IO, err, asJSON)
		}
	}
	return exitCode(err)
}

// builtins are fledge's own top-level words; anything else that is not a
// flag names a plugin command.
var builtins = map[string]bool{"plugins": true, "help": true, "completion": true, "version": true, "__complete": true, "__completeNoDesc": true}

func isPluginCommand(arg string) bool {
	return arg != "" && !strings.HasPrefix(arg, "-") && !builtins[arg]
}

func newRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "fledge",
		Short: "Install, audit and run fledge plugins",
		Long: `fledge installs plugins (git repos named fledge-plugin-<name>) with exactly the
capabilities you approve, records the exact revision, and runs them.

Run an installed plugin's command with: fledge <command> [args...]`,
		Version:       f.Version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetVersionTemplate("fledge {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err: err} })
	root.CompletionOptions.HiddenDefaultCmd = true

	plugins := &cobra.Command{
		Use:   "plugins",
		Short: "Install, list, audit, remove and run plugins",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return c.Help()
		},
	}
	plugins.AddCommand(
		newInstallCmd(f),
		newListCmd(f),
		newAuditCmd(f),
		newRemoveCmd(f),
		newValidateCmd(f),
		newRunCmd(f),
		newSearchCmd(f),
		newUpdateCmd(f),
		newCreateCmd(f),
		newVerifyCmd(f),
		newSyncCmd(f),
	)
	root.AddCommand(plugins)
	return root
}

func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unexpected argument %q", args[0])
	}
	return nil
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes exactly %d argument(s): %s", c.CommandPath(), n, what)
		}
		return nil
	}
}

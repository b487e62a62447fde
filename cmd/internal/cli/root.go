package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/runner"
)

// Main runs fledge with args (without the program name) and returns the exit
// code. It never calls os.Exit, so tests run it in-process.
func Main(args []string, s *IOStreams, version string) int {
	f := NewFactory(s, version)
	ctx, stop := f.interrupts.Notify(context.Background())
	defer stop()
	return run(ctx, f, args)
}

func run(ctx context.Context, f *Factory, args []string) int {
	args, lerr := leadingFlags(args)
	if lerr != nil {
		printError(f.IO, lerr, false)
		fmt.Fprintln(f.IO.ErrOut, "Run 'fledge --help' for usage.")
		return exitCode(lerr)
	}
	// Rust's global --ni/--non-interactive may come before a plugin's
	// command too: fledge --ni <command> [args...].
	lead := 0
	for lead < len(args) && fastrun.IsNonInteractiveFlag(args[lead]) {
		lead++
	}
	// A plugin's command is told from fledge's own words without building
	// the command tree: a run needs nothing of it (see builtinWords).
	if lead < len(args) && isPluginCommand(builtinWords, args[lead]) {
		if lead > 0 {
			f.IO.ForceNonInteractive = true
		}
		err := runPluginCommand(ctx, f, args[lead], args[lead+1:])
		if err != nil && errorCode(err) == CodeUnknownCommand {
			if ran, xerr := runExternal(ctx, f, args[lead], args[lead+1:]); ran {
				err = xerr
			} else if sub := pluginsSubcommand(newRootCmd(f), args[lead]); sub != "" {
				// fledge install foo: the word is a plugins subcommand.
				err = withCode(CodeUnknownCommand, err, fmt.Sprintf("did you mean '%s'?", commandLine(append([]string{"plugins", sub}, args[lead+1:]...)...)))
			} else if s := suggestCommand(f, args[lead]); len(s) > 0 {
				err = withCode(CodeUnknownCommand, err, fmt.Sprintf("did you mean 'fledge %s'? ('fledge help' lists every command)", s[0]))
			}
		}
		return endPluginCommand(f, err)
	}

	if fastrun.VersionAsked(args) {
		// The plainest command builds no tree either.
		fmt.Fprint(f.IO.Out, fastrun.VersionLine(f.Version))
		return ExitOK
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
			if cmd.Name() == "help" && cmd.HasParent() {
				cmd = cmd.Parent() // help's own usage is not what was asked
			}
			fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		} else {
			printError(f.IO, err, asJSON)
		}
	}
	return exitCode(err)
}

// endPluginCommand ends `fledge <command>`: err is shown (unless it is
// only the plugin's own exit code) and becomes fledge's exit code.
func endPluginCommand(f *Factory, err error) int {
	if err != nil {
		var ec *exitCodeError
		if !errors.As(err, &ec) {
			printError(f.IO, err, false)
		}
	}
	return exitCode(err)
}

// ReportRun ends `fledge <command>` for a run fastrun started and handed
// back (fastrun.Core.Report): the command line's report of res and err,
// and its exit code, as if it had run the plugin itself.
func ReportRun(res *runner.Result, err error, s *IOStreams, version string) int {
	f := NewFactory(s, version)
	return endPluginCommand(f, runOutcome(f, res, err))
}

// pluginsFlags are the flags every plugins subcommand's neighbourhood takes
// that users type first, as a global flag: fledge --json plugins list.
var pluginsFlags = map[string]bool{"--json": true, "-y": true, "--yes": true}

// leadingFlags looks at the flags before the first word. fledge's own
// (--help, --version, --ni) stay; --json and --yes before plugins move
// after it, where they mean what was meant. Any other flag there is a
// usage error naming it and where it goes, not an "unknown command" about
// the word after it.
func leadingFlags(args []string) ([]string, error) {
	n := 0
	for n < len(args) && strings.HasPrefix(args[n], "-") && args[n] != "--" {
		if args[n] == "-V" { // the Rust fledge's spelling of --version
			args = slices.Concat(args[:n], []string{"--version"}, args[n+1:])
		}
		n++
	}
	if n == 0 || n == len(args) {
		return args, nil
	}
	word := args[n]
	var keep, move []string
	for _, a := range args[:n] {
		name, _, _ := strings.Cut(a, "=")
		switch {
		case fastrun.IsNonInteractiveFlag(name) || name == "--help" || name == "-h" || name == "--version" || name == "-v":
			keep = append(keep, a)
		case pluginsFlags[name] && (word == "plugins" || word == "plugin"):
			move = append(move, a)
		default:
			where := "after the command"
			if !strings.HasPrefix(word, "-") {
				where = fmt.Sprintf("after the command: fledge %s ... %s", word, a)
			}
			return nil, usageErrorf("unknown flag: %s before %q; put it %s", a, word, where)
		}
	}
	out := append(keep, word)
	out = append(out, move...)
	return append(out, args[n+1:]...), nil
}

// builtinWords are topLevelWords of fledge's tree, known without building
// it: `fledge <command>` is told from fledge's own words on every run, and
// building the tree (every command, flag and completion function) is the
// larger part of fledge's own work before a plugin starts.
// TestBuiltinWordsAreTheTree holds this list to the tree, so a new command
// is never mistaken for a plugin's.
var builtinWords = fastrun.BuiltinWords

// topLevelWords are the words root's tree takes first: each top-level
// command's name and aliases (the Rust fledge's spellings among them),
// help, and cobra's hidden completion requests. Read from the tree, so a
// new command is never mistaken for a plugin's.
func topLevelWords(root *cobra.Command) map[string]bool {
	root.InitDefaultHelpCmd()
	words := map[string]bool{cobra.ShellCompRequestCmd: true, cobra.ShellCompNoDescRequestCmd: true}
	for _, c := range root.Commands() {
		words[c.Name()] = true
		for _, a := range c.Aliases {
			words[a] = true
		}
	}
	return words
}

// isPluginCommand reports whether arg, the first word, names a plugin
// command: not a flag, nor one of fledge's own words.
func isPluginCommand(words map[string]bool, arg string) bool {
	return arg != "" && !strings.HasPrefix(arg, "-") && !words[arg]
}

// nonInteractiveFlag is --non-interactive (and --ni): setting it turns
// IOStreams.ForceNonInteractive on. Unlike a plain bool flag, defining it
// never turns it off, so a command tree built after `fledge --ni <command>`
// was seen keeps it.
type nonInteractiveFlag struct{ s *IOStreams }

func (n nonInteractiveFlag) String() string {
	return strconv.FormatBool(n.s != nil && n.s.ForceNonInteractive)
}
func (n nonInteractiveFlag) Type() string     { return "bool" }
func (n nonInteractiveFlag) IsBoolFlag() bool { return true }
func (n nonInteractiveFlag) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	if b {
		n.s.ForceNonInteractive = true
	}
	return nil
}

// unknownSubcommand is the Args check of a command that only groups
// subcommands: a word that names none of them is a usage error that names
// it and suggests the nearest.
func unknownSubcommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := suggest(c, args[0]); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", s[0])
	}
	return &usageError{err: errors.New(msg)}
}

func newRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "fledge",
		Short: "Install, audit and run fledge plugins",
		Long: `fledge installs plugins (git repos named fledge-plugin-<name>) with exactly the
capabilities you approve, records the exact revision, and runs them.

Run an installed plugin's command with: fledge <command> [args...]
Its arguments and grants:               fledge help <command>
Complete commands and names with TAB:   source <(fledge completion bash)
Environment, exit codes, files:         fledge help environment|exit-codes|files`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	// --version as cobra defines it (for help and completion), answered
	// by fastrun.VersionAsked before the tree runs: cobra
	// prints a version through text/template, whose reflection turns off
	// the linker's dead code elimination for the whole binary (see
	// spf13/cobra#1956): 3.8 MB more to map at every start.
	root.Flags().BoolP("version", "v", false, "version for fledge")
	_ = root.Flags().SetAnnotation("version", cobra.FlagSetByCobraAnnotation, []string{"true"})
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err: err} })
	// Under --json nothing is painted, on stdout or stderr.
	root.PersistentPreRun = func(c *cobra.Command, args []string) {
		if fl := c.Flags().Lookup("json"); fl != nil && fl.Value.String() == "true" {
			f.IO.Plain = true
		}
	}
	// Rust's global flag: never prompt (as FLEDGE_NON_INTERACTIVE=1).
	gf := root.PersistentFlags()
	gf.Var(nonInteractiveFlag{f.IO}, "non-interactive", "never prompt: questions that need a human fail instead")
	gf.Var(nonInteractiveFlag{f.IO}, "ni", "the same as --non-interactive")
	gf.Lookup("non-interactive").NoOptDefVal = "true"
	gf.Lookup("ni").NoOptDefVal = "true"
	root.SetHelpCommand(newHelpCmd(f))
	root.SetHelpFunc(rootHelp(f, root.HelpFunc()))
	root.ValidArgsFunction = completeRoot(f)

	plugins := &cobra.Command{
		Use:     "plugins",
		Aliases: []string{"plugin"},
		Short:   "Install, list, audit, remove and run plugins",
		Args:    unknownSubcommand,
		RunE: func(c *cobra.Command, args []string) error {
			return c.Help()
		},
	}
	// --json may come before the subcommand, as the Rust fledge allows:
	// fledge plugins --json list. Each subcommand's own --json takes it.
	plugins.PersistentFlags().Bool("json", false, "print one JSON document")
	plugins.AddCommand(
		newInstallCmd(f),
		newListCmd(f),
		newAuditCmd(f),
		newRemoveCmd(f),
		newGrantCmd(f),
		newRevokeCmd(f),
		newUnconfineCmd(f),
		newConfineCmd(f),
		newDisableCmd(f),
		newEnableCmd(f),
		newInfoCmd(f),
		newValidateCmd(f),
		newRunCmd(f),
		newToolsCmd(f),
		newSearchCmd(f),
		newUpdateCmd(f),
		newCreateCmd(f),
		newVerifyCmd(f),
		newSyncCmd(f),
		newMirrorCmd(f),
		newBundleCmd(f),
		newRecommendCmd(f),
		newPublishCmd(f),
		newPolicyCmd(f),
	)
	pluginsHelp := newHelpCmd(f)
	pluginsHelp.Hidden = true // works, as users expect; listed once, under fledge
	plugins.AddCommand(pluginsHelp)
	root.AddCommand(plugins, newCompletionCmd(f), newVersionCmd(f), newMCPCmd(f))
	return root
}

// pluginsSubcommand is the name of the plugins subcommand that word names
// (by name or alias), or "".
func pluginsSubcommand(root *cobra.Command, word string) string {
	for _, c := range root.Commands() {
		if c.Name() != "plugins" {
			continue
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && (sub.Name() == word || slices.Contains(sub.Aliases, word)) {
				return sub.Name()
			}
		}
	}
	return ""
}

// suggest lists c's subcommands whose names are close to word (within
// two edits, or starting with it), as cobra's "did you mean".
func suggest(c *cobra.Command, word string) []string {
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2
	}
	return c.SuggestionsFor(word)
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

package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// newHelpCmd is `help [command]` of the command it is added to (fledge
// itself, or plugins): help for a command, for an installed plugin's
// command (its description, declared arguments, plugin and grants), and a
// usage error that suggests the nearest command when there is none.
func newHelpCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command, also an installed plugin's",
		Long: `Help about any command. For an installed plugin's command, what the plugin
declares: its description, its arguments, and what it was granted.
('fledge <command> --help' passes --help to the plugin itself.)`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			parent := c.Parent()
			if len(args) > 0 {
				found, _, err := parent.Find(args)
				if err != nil || found == parent {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				parent = found
			}
			var out []cobra.Completion
			for _, sub := range parent.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, completion(sub.Name(), sub.Short))
				}
			}
			if len(args) == 0 && !parent.HasParent() {
				out = append(out, completeCommands(f, toComplete)...)
				for _, t := range helpTopics {
					if strings.HasPrefix(t.Name, toComplete) {
						out = append(out, completion(t.Name, t.Short))
					}
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			parent := c.Parent()
			if len(args) == 0 {
				return parent.Help()
			}
			if t, ok := findTopic(args[0]); ok && len(args) == 1 {
				_, err := fmt.Fprint(c.OutOrStdout(), topicText(t))
				return err
			}
			target, rest, err := parent.Find(args)
			if err == nil && target != nil && target != parent && len(rest) == 0 {
				return target.Help()
			}
			// fledge help <command> and fledge plugins help <command> both
			// tell of an installed plugin's command.
			if (!parent.HasParent() || parent.Name() == "plugins") && isPluginCommand(topLevelWords(c.Root()), args[0]) {
				if ok, err := pluginCommandHelp(f, args[0]); ok || err != nil {
					return err
				}
			}
			p, word := parent, args[0]
			if err == nil && target != nil && target != parent && len(rest) > 0 {
				p, word = target, rest[0]
			}
			return unknownCommand(f, p, word)
		},
	}
}

// pluginCommandHelp prints what fledge knows of an installed plugin's
// command, from its record in plugins.toml (through the command index: one
// entry decoded). ok is false when no installed plugin provides command.
func pluginCommandHelp(f *Factory, command string) (ok bool, err error) {
	paths, err := f.Paths()
	if err != nil {
		return false, err
	}
	p, found, err := lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock()).CommandOwner(command, paths.CommandIndexFile(), paths.PluginsDigestFile())
	if err != nil || !found {
		return false, err
	}
	// Tier and grants are the settings' answer, as in list, info, audit,
	// tools and at run time; a policy that cannot be read is for those
	// to report (help goes on with config.toml alone).
	set, _, err := describeSettings(f, paths)
	if err != nil {
		return true, err
	}
	g := set.Grants(p)
	st := f.IO.OutStyle()
	w := f.IO.Out
	desc := termsafe.Line(p.Description)
	var detail *commandJSON
	for _, cd := range toCommandsJSON(p) {
		if cd.Name == command {
			detail = &cd
			break
		}
	}
	if detail != nil && detail.Description != "" {
		desc = termsafe.Line(detail.Description)
	}
	fmt.Fprintf(w, "%s", st.Bold("fledge "+command))
	if desc != "" {
		fmt.Fprintf(w, " — %s", desc)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "\nProvided by %s %s (%s) from %s\n", termsafe.Escape(p.Name), termsafe.Escape(p.Version),
		st.Tier(string(g.Tier)), termsafe.Escape(p.Source))

	usage := "fledge " + command
	if detail != nil && len(detail.Args) > 0 {
		for _, a := range detail.Args {
			if a.Required {
				usage += " <" + termsafe.Escape(a.Name) + ">"
			} else {
				usage += " [" + termsafe.Escape(a.Name) + "]"
			}
		}
	} else {
		usage += " [args...]"
	}
	fmt.Fprintf(w, "\nUsage:\n  %s\n", usage)
	if detail != nil && len(detail.Args) > 0 {
		fmt.Fprintln(w, "\nArguments:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, a := range detail.Args {
			req := "optional"
			if a.Required {
				req = "required"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", termsafe.Escape(a.Name), termsafe.Escape(a.Type), req, termsafe.Line(a.Description))
		}
		tw.Flush()
	}
	if detail != nil && detail.Dangerous {
		fmt.Fprintf(w, "\n%s the plugin marks this command dangerous: it changes things outside fledge.\n", st.Warn("!"))
	}
	fmt.Fprintf(w, "\nGranted: %s\n", capsText(toCapsJSON(g.Capabilities)))
	if others := slices.DeleteFunc(slices.Clone(p.Commands), func(c string) bool { return c == command }); len(others) > 0 {
		fmt.Fprintf(w, "Also provides: %s\n", termsafe.Escape(strings.Join(others, ", ")))
	}
	fmt.Fprintf(w, "\nArguments pass to the plugin verbatim; 'fledge %s --help' asks the plugin itself.\n", command)
	fmt.Fprintf(w, "More about the plugin: %s\n", commandLine("plugins", "info", p.Name))
	return true, nil
}

// rootHelp is fledge's help function: cobra's, and after fledge's own
// commands, the installed plugins' commands.
func rootHelp(f *Factory, cobraHelp func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		cobraHelp(c, args)
		if c.HasParent() {
			return
		}
		in, err := readInstalled(f)
		if err != nil {
			// 'fledge plugins list' reports what is wrong; help goes on.
			return
		}
		cmds := in.Commands
		if len(cmds) == 0 {
			fmt.Fprintln(c.OutOrStdout(), "\nNo plugins installed yet: fledge plugins install <source>, or fledge plugins search.")
			return
		}
		w := c.OutOrStdout()
		fmt.Fprintln(w, "\nInstalled plugin commands ('fledge help <command>' shows their arguments):")
		writeCommandTable(w, cmds)
	}
}

// writeCommandTable lists commands with their descriptions, one a line,
// each description cut to fit a line.
func writeCommandTable(w io.Writer, cmds []lockfile.InstalledCommand) {
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.Name))
	}
	for _, c := range cmds {
		d := termsafe.Truncate(termsafe.Line(c.Description), 60)
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, d)
	}
}

// newVersionCmd is `fledge version`: what --version prints.
func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print fledge's version",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "fledge %s\n", f.Version)
			return err
		},
	}
}

// unknownCommand is the usage error for a word that names no command of
// c, suggesting the nearest (and, at the top level, the nearest installed
// plugin command).
func unknownCommand(f *Factory, c *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, c.CommandPath())
	var s []string
	if c.HasParent() {
		s = suggest(c, word)
	} else {
		s = suggestCommand(f, word)
	}
	if len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", s[0])
	}
	return &usageError{err: fmt.Errorf("%s", msg)}
}

// suggestCommand lists the installed plugin commands and fledge's own
// top-level commands close to word, by cobra's rule (within two edits, or
// starting with it): those within one edit first, installed ones before
// fledge's at the same distance.
func suggestCommand(f *Factory, word string) []string {
	var cands []string
	for _, c := range installedForCompletion(f).Commands {
		cands = append(cands, c.Name)
	}
	cands = append(cands, "help")
	for _, c := range newRootCmd(f).Commands() {
		if c.IsAvailableCommand() {
			cands = append(cands, c.Name())
		}
	}
	return nearest(word, cands)
}

// nearest lists the candidates close to word by cobra's rule (within two
// edits, or starting with it), those within one edit first, in the order
// given at the same distance: the one "did you mean" of fledge.
func nearest(word string, candidates []string) []string {
	nop := func(*cobra.Command, []string) {}
	cands := &cobra.Command{Use: "fledge"}
	for _, c := range candidates {
		cands.AddCommand(&cobra.Command{Use: c, Run: nop})
	}
	var out []string
	for d := 1; d <= 2; d++ {
		cands.SuggestionsMinimumDistance = d
		for _, s := range cands.SuggestionsFor(word) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

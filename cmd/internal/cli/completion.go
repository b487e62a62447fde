package cli

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Shell completion. The scripts ask `fledge __complete <words>` for each
// TAB; the functions here answer from the command index (see
// lockfile.Store.Installed): installed commands at the top level, plugin
// names and capability names where commands take them. They never recover
// an interrupted install, write plugins.toml, read a manifest or start a
// plugin: a TAB must be fast and have no effects. Commands attach them with
// ValidArgsFunction and RegisterFlagCompletionFunc:
//
//	info:                  completePluginNames(f, false)
//	remove, update, verify: completePluginNames(f, true)
//	grant, revoke:         completePluginThenCapabilities(f)
//	--grant (any command): completeCapabilities

// installedForCompletion lists what is installed, or nothing when that
// cannot be read (completion never reports errors).
func installedForCompletion(f *Factory) *lockfile.Installed {
	in, err := readInstalled(f)
	if err != nil {
		return &lockfile.Installed{}
	}
	return in
}

// readInstalled lists what is installed, from the command index.
func readInstalled(f *Factory) (*lockfile.Installed, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	return lockfile.NewStore(p.PluginsFile(), p.PluginsLock()).Installed(p.CommandIndexFile())
}

// completion is one candidate with its description, as cobra prints it
// (the description sanitised and on one line).
func completion(word, desc string) cobra.Completion {
	desc = strings.TrimSpace(termsafe.Line(desc))
	if desc == "" {
		return word
	}
	return cobra.CompletionWithDesc(word, desc)
}

// completeCommands completes the first word of `fledge <command>` (and of
// `plugins run`, `help`) with the installed plugin commands.
func completeCommands(f *Factory, toComplete string) []cobra.Completion {
	var out []cobra.Completion
	for _, c := range installedForCompletion(f).Commands {
		if strings.HasPrefix(c.Name, toComplete) {
			out = append(out, completion(c.Name, c.Description))
		}
	}
	return out
}

// completeRoot is the root's ValidArgsFunction: after `fledge`, the
// installed commands (cobra adds fledge's own); after a plugin's command,
// the plugin's own arguments, which fledge does not know: files.
func completeRoot(f *Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return completeCommands(f, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completePluginNames completes installed plugin names: the manifest name,
// or the short form (fledge-plugin- removed) once what was typed can only
// be that. With many, every argument is a name (update, verify); without,
// only the first (remove, info).
func completePluginNames(f *Factory, many bool) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 && !many {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return pluginNameCompletions(f, args, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completePluginThenCapabilities completes `grant <name> CAP...` and
// `revoke <name> CAP...`: a plugin name, then capability names not yet on
// the line that the command would change: for grant, what the plugin is
// not granted yet; for revoke, what it is granted (read from plugins.toml;
// everything when that cannot be read).
func completePluginThenCapabilities(f *Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return pluginNameCompletions(f, nil, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		granted, known := grantedForCompletion(f, args[0])
		var out []cobra.Completion
		for _, name := range grantable() {
			if known && slices.Contains(granted, name) != (c.Name() == "revoke") {
				continue
			}
			if strings.HasPrefix(name, toComplete) && !slices.Contains(args[1:], name) {
				out = append(out, completion(name, manifest.GrantMeaning(name)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// grantedForCompletion lists what plugin is granted (capabilities and
// hooks, as grant names); known is false when that cannot be read.
func grantedForCompletion(f *Factory, plugin string) (granted []string, known bool) {
	p, err := f.Paths()
	if err != nil {
		return nil, false
	}
	file, err := lockfile.NewStore(p.PluginsFile(), p.PluginsLock()).Load()
	if err != nil {
		return nil, false
	}
	e, err := file.Resolve(plugin)
	if err != nil {
		return nil, false
	}
	return install.Grants{Capabilities: e.Capabilities, Hooks: e.Hooks}.Items(), true
}

func pluginNameCompletions(f *Factory, already []string, toComplete string) []cobra.Completion {
	names := installedForCompletion(f).Plugins
	shorts := map[string]int{}
	for _, n := range names {
		shorts[lockfile.ShortName(n)]++
	}
	var out []cobra.Completion
	for _, n := range names {
		word := n
		if !strings.HasPrefix(n, toComplete) {
			s := lockfile.ShortName(n)
			if shorts[s] != 1 || !strings.HasPrefix(s, toComplete) {
				continue
			}
			word = s
		}
		if slices.Contains(already, n) || slices.Contains(already, word) {
			continue
		}
		out = append(out, word)
	}
	return out
}

// grantable lists what --grant accepts: the capabilities, then hooks.
func grantable() []string { return manifest.GrantNames() }

// completeCapabilities completes --grant's comma-separated list: the word
// after the last comma, with what precedes it kept and names already
// listed left out.
func completeCapabilities(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	done, last := "", toComplete
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	listed := strings.Split(done, ",")
	var out []cobra.Completion
	for _, name := range grantable() {
		if strings.HasPrefix(name, strings.ToLower(last)) && !slices.Contains(listed, name) {
			out = append(out, completion(done+name, manifest.GrantMeaning(name)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// registerGrantCompletion completes the --grant flag of cmd.
func registerGrantCompletion(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("grant", completeCapabilities)
}

// completeWords completes a flag with a fixed set of words.
func completeWords(words ...string) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, w := range words {
			if strings.HasPrefix(w, toComplete) {
				out = append(out, w)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeRunArgs completes `plugins run`, which parses its own flags: the
// command first, then the plugin's arguments (files, as fledge <command>).
func completeRunArgs(f *Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		for i := 0; i < len(args); i++ {
			switch a := args[i]; {
			case a == "--":
				if i == len(args)-1 {
					return completeCommands(f, toComplete), cobra.ShellCompDirectiveNoFileComp
				}
				return nil, cobra.ShellCompDirectiveDefault
			case a == "--timeout":
				i++
			case strings.HasPrefix(a, "-"):
			default:
				return nil, cobra.ShellCompDirectiveDefault
			}
		}
		if strings.HasPrefix(toComplete, "-") {
			return completeWords("--ni", "--json", "--timeout", "--")(c, nil, toComplete)
		}
		if len(args) > 0 && args[len(args)-1] == "--timeout" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeCommands(f, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// newCompletionCmd is `fledge completion <shell>` (and the Rust fledge's
// `completions`).
func newCompletionCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "completion <bash|zsh|fish|powershell>",
		Aliases: []string{"completions"},
		Short:   "Print the shell completion script for bash, zsh, fish or powershell",
		Long: `Print the script that lets your shell complete fledge's commands, flags,
installed plugin commands, plugin names and capability names.

  bash   works in plain bash; the bash-completion package is not needed
  zsh, fish, powershell

To try it in the current shell:   source <(fledge completion bash)
See 'fledge completion <shell> --help' for how to load it in every new shell.`,
		Args: unknownSubcommand,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	var noDesc bool
	cmd.PersistentFlags().BoolVar(&noDesc, "no-descriptions", false, "complete without the descriptions of commands and flags")
	shell := func(name, load string, gen func(w io.Writer, root *cobra.Command) error) *cobra.Command {
		return &cobra.Command{
			Use:               name,
			Short:             "Print the completion script for " + name,
			Long:              "Print the completion script for " + name + ".\n\n" + load,
			Args:              noArgs,
			ValidArgsFunction: cobra.NoFileCompletions,
			RunE: func(c *cobra.Command, args []string) error {
				return gen(f.IO.Out, c.Root())
			},
		}
	}
	cmd.AddCommand(
		shell("bash", `It works in plain bash (4.0 or later), with or without the bash-completion
package. In the current shell:

  source <(fledge completion bash)

In every new shell, either add that line to ~/.bashrc, or (with the
bash-completion package, which loads it on first use):

  mkdir -p ~/.local/share/bash-completion/completions
  fledge completion bash > ~/.local/share/bash-completion/completions/fledge`,
			func(w io.Writer, root *cobra.Command) error { return genBashCompletion(w, root, !noDesc) }),
		shell("zsh", `In the current shell:

  source <(fledge completion zsh)

In every new shell: write it to a directory of your own (the first entry
of $fpath is usually the system's, which you cannot write to),

  mkdir -p ~/.zfunc
  fledge completion zsh > ~/.zfunc/_fledge

and add these lines to ~/.zshrc (fpath before compinit):

  fpath=(~/.zfunc $fpath)
  autoload -U compinit; compinit`,
			func(w io.Writer, root *cobra.Command) error {
				if noDesc {
					return root.GenZshCompletionNoDesc(w)
				}
				return root.GenZshCompletion(w)
			}),
		shell("fish", `In the current shell:

  fledge completion fish | source

In every new shell (fish loads it on first use):

  mkdir -p ~/.config/fish/completions
  fledge completion fish > ~/.config/fish/completions/fledge.fish`,
			func(w io.Writer, root *cobra.Command) error { return root.GenFishCompletion(w, !noDesc) }),
		shell("powershell", `In the current shell:

  fledge completion powershell | Out-String | Invoke-Expression

In every new shell, add that line to your PowerShell profile ($PROFILE).`,
			func(w io.Writer, root *cobra.Command) error {
				if noDesc {
					return root.GenPowerShellCompletion(w)
				}
				return root.GenPowerShellCompletionWithDesc(w)
			}),
	)
	// The Rust fledge also prints an elvish script (clap has one); cobra
	// does not, so say so and what works instead rather than "unknown".
	cmd.AddCommand(&cobra.Command{
		Use:    "elvish",
		Short:  "Not offered: fledge completes bash, zsh, fish and powershell",
		Hidden: true,
		RunE: func(c *cobra.Command, args []string) error {
			return usageErrorf("fledge has no elvish completion script (the Rust fledge's came from clap; fledge's come from cobra, which writes bash, zsh, fish and powershell only); in elvish, carapace (carapace.sh) can complete fledge through its bash script")
		},
	})
	return cmd
}

// genBashCompletion writes cobra's bash script, made to work in plain
// bash. Cobra's script takes the words being completed from
// _get_comp_words_by_ref, a function of the bash-completion package: in a
// bash without it, every TAB printed "command not found". The function
// appended here replaces the script's own __fledge_init_completion: it
// calls bash-completion when that is loaded, and otherwise rebuilds the
// words itself, joining again what bash split at '=' and ':' (as `-n =:`
// asks), so that --grant=ex<TAB> reaches fledge as one word.
func genBashCompletion(w io.Writer, root *cobra.Command, desc bool) error {
	var b bytes.Buffer
	if err := root.GenBashCompletionV2(&b, desc); err != nil {
		return err
	}
	const fn = "__fledge_init_completion()"
	if !bytes.Contains(b.Bytes(), []byte(fn)) {
		return fmt.Errorf("cobra's bash script no longer defines %s", fn)
	}
	b.WriteString(plainBashInit)
	_, err := w.Write(b.Bytes())
	return err
}

const plainBashInit = `
# fledge: plain bash (without the bash-completion package) has no
# _get_comp_words_by_ref. This replaces the function above: it uses
# bash-completion when it is loaded, and otherwise takes the words from
# COMP_WORDS up to the cursor, joining again the words bash split at '='
# or ':' (as "-n =:" asks).
__fledge_init_completion()
{
    COMPREPLY=()
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    local line=${COMP_LINE:0:COMP_POINT} pos=0 i w rest gap n
    words=()
    cword=0
    for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
        rest=${line:pos}
        w=${rest#"${rest%%[![:space:]]*}"}
        gap=$(( ${#rest} - ${#w} ))
        pos=$(( pos + gap ))
        if ((i < COMP_CWORD)); then
            w=${COMP_WORDS[i]}
            if [[ ${line:pos:${#w}} != "$w" ]]; then
                # The line does not hold the words as bash split them:
                # take them as they are.
                words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
                cword=$COMP_CWORD
                break
            fi
        fi
        n=${#words[@]}
        if ((n > 0 && gap == 0)) && [[ $w == [=:]* || ${words[n-1]} == *[=:] ]]; then
            words[n-1]+=$w
        else
            words+=("$w")
        fi
        cword=$(( ${#words[@]} - 1 ))
        pos=$(( pos + ${#w} ))
    done
    cur=${words[cword]}
    prev=
    if ((cword > 0)); then
        prev=${words[cword-1]}
    fi
    return 0
}
`

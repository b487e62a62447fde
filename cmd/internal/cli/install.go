package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type installOptions struct {
	consentFlags
	provenance provenanceFlag
	Sources    []string
	Force      bool
	Copy       bool
	Defaults   bool
	JSON       bool
}

func newInstallCmd(f *Factory) *cobra.Command {
	opts := &installOptions{}
	cmd := &cobra.Command{
		Use:   "install <source>...",
		Short: "Install plugins from local paths, git URLs or owner/repo",
		Long: `Install plugins. A source is ./dir or /abs/dir (live-linked; --copy snapshots it),
a git URL (https://, ssh://, git://, file://, git@host:owner/repo), owner/repo
(expanded with FLEDGE_GITHUB_URL), and may end in @REF: a tag, branch or commit.

Everything a plugin requests (capabilities, hooks, its build command) is shown
and must be approved: on a terminal you choose; in scripts use --yes and --grant.`,
		Example: `  fledge plugins install ./examples/fledge-plugin-hello --yes
  fledge plugins install CorvidLabs/fledge-plugin-deps@v0.2.0 --yes
  fledge plugins install https://example.com/me/fledge-plugin-x.git --grant exec,hooks
  fledge plugins install --defaults --yes`,
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case opts.Defaults && len(args) > 0:
				return usageErrorf("--defaults installs the curated set (%s); do not name sources with it", strings.Join(registry.DefaultPlugins, ", "))
			case opts.Defaults && opts.Copy:
				return usageErrorf("--copy is for local directories and cannot be used with --defaults")
			case opts.Defaults:
				args = registry.DefaultPlugins
			case len(args) == 0:
				return usageErrorf("install needs at least one source, or --defaults for the curated set")
			}
			opts.Sources = args
			return installRun(c.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	opts.consentFlags.register(fl)
	opts.provenance.register(fl)
	registerGrantCompletion(cmd)
	fl.BoolVar(&opts.Force, "force", false, "reinstall a plugin that is already installed")
	fl.BoolVar(&opts.Copy, "copy", false, "copy a local plugin instead of linking it")
	fl.BoolVar(&opts.Defaults, "defaults", false, "install the curated default plugins (github, deps, metrics) at their pinned tags")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON result")
	return cmd
}

// installFailure is one source that did not install: Rust's {source,
// error} with the error as text, and fledge's code and hint beside it.
type installFailure struct {
	Source  string    `json:"source"`
	Error   string    `json:"error"`
	Failure jsonError `json:"failure"`
}

// installedJSON is one plugin installed: list's entry, with Rust's
// install capabilities (src/plugin/install.rs, install_plugin): what was
// granted, or null for a plugin that does not speak the protocol.
type installedJSON struct {
	pluginJSON
	Capabilities *capsJSON `json:"capabilities"`
}

func toInstalledJSON(p pluginJSON) installedJSON {
	j := installedJSON{pluginJSON: p}
	if p.Protocol != "" {
		caps := p.Granted
		j.Capabilities = &caps
	}
	return j
}

type installSummary struct {
	Total     int `json:"total"`
	Installed int `json:"installed"`
	Failed    int `json:"failed"`
}

type installDoc struct {
	SchemaVersion int    `json:"schema_version"`
	Action        string `json:"action"`
	// Scope is Rust's "single" (one source) or "defaults" (--defaults),
	// or "multiple" when several sources were named.
	Scope     string           `json:"scope"`
	Installed []installedJSON  `json:"installed"`
	Failed    []installFailure `json:"failed"`
	Summary   installSummary   `json:"summary"`
	Error     *jsonError       `json:"error,omitempty"`
}

func installRun(ctx context.Context, f *Factory, opts *installOptions) error {
	in, set, err := newInstaller(ctx, f, opts.consentFlags, true)
	if err != nil {
		return err
	}
	in.Force, in.Copy = opts.Force, opts.Copy
	if err := opts.provenance.apply(in); err != nil {
		return err
	}
	if f.IO.ShowProgress() && !opts.JSON {
		in.Git.Progress = newFetchProgress(newRunUI(f.IO, f.Prompter))
	}
	in.LookupName = registryLookup(f, in.Paths, set.Config())

	doc := installDoc{SchemaVersion: SchemaVersion, Action: "install", Scope: "single", Installed: []installedJSON{}, Failed: []installFailure{}}
	switch {
	case opts.Defaults:
		doc.Scope = "defaults"
	case len(opts.Sources) > 1:
		doc.Scope = "multiple"
	}
	var firstErr error
	for _, src := range opts.Sources {
		res, err := in.Install(ctx, src)
		if err != nil {
			err = installHint(in, err, src, opts)
			if firstErr == nil {
				firstErr = err
			}
			je := *toJSONError(err)
			doc.Failed = append(doc.Failed, installFailure{Source: registry.RedactText(src), Error: je.Message, Failure: je})
			if !opts.JSON || len(opts.Sources) > 1 {
				est := f.IO.ErrStyle()
				fmt.Fprintf(f.IO.ErrOut, "%s %s: %s\n", est.Fail("✗"), termsafe.Escape(registry.RedactText(src)), je.Message)
				if je.Hint != "" {
					fmt.Fprintf(f.IO.ErrOut, "  %s %s\n", est.Info("hint:"), je.Hint)
				}
			}
			if ctx.Err() != nil {
				break // the user's Ctrl+C: the sources after this one are not tried
			}
			continue
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(f.IO.ErrOut, "%s %s: %s\n", f.IO.ErrStyle().Warn("warning:"), termsafe.Escape(res.Entry.Name), termsafe.EscapeText(w))
		}
		pj := toPluginJSON(&res.Entry, set.Grants(&res.Entry), unconfinedFor(f, &res.Entry))
		doc.Installed = append(doc.Installed, toInstalledJSON(pj))
		if !opts.JSON {
			printInstalled(f.IO.Out, f.IO.OutStyle(), pj, res)
		}
	}
	doc.Summary = installSummary{Total: len(opts.Sources), Installed: len(doc.Installed), Failed: len(doc.Failed)}
	if !opts.JSON && len(opts.Sources) > 1 {
		printInstallTotals(f.IO.Out, f.IO.OutStyle(), doc.Summary)
	}

	if opts.JSON {
		if firstErr != nil {
			doc.Error = &doc.Failed[0].Failure
		}
		if err := writeJSON(f.IO.Out, doc); err != nil {
			return err
		}
		if firstErr != nil && len(opts.Sources) == 1 {
			printErrorText(f.IO.ErrOut, Style{}, doc.Error)
		}
	}
	if firstErr != nil {
		return &exitCodeError{code: exitCode(firstErr)}
	}
	return nil
}

// printInstallTotals sums up an install of several sources.
func printInstallTotals(w io.Writer, st Style, n installSummary) {
	plugins := func(k int) string {
		if k == 1 {
			return "1 plugin"
		}
		return fmt.Sprintf("%d plugins", k)
	}
	if n.Failed == 0 {
		fmt.Fprintf(w, "%s Installed %s\n", st.OK("✓"), plugins(n.Installed))
		return
	}
	fmt.Fprintf(w, "%s Installed %d of %s; %d failed (see above)\n", st.Fail("✗"), n.Installed, plugins(n.Total), n.Failed)
}

func printInstalled(w io.Writer, st Style, p pluginJSON, res *install.Result) {
	verb := "Installed"
	if res.Replaced {
		verb = "Reinstalled"
	}
	rev := ""
	if p.Commit != "" {
		rev = ", commit " + p.Commit[:min(12, len(p.Commit))]
	}
	fmt.Fprintf(w, "%s %s %s %s (%s%s)\n", st.OK("✓"), verb, st.Bold(termsafe.Escape(p.Name)), termsafe.Escape(p.Version), st.Tier(p.TrustTier), rev)
	if prev := res.Previous; prev != nil {
		fmt.Fprintf(w, "  replaced: %s, which was granted %s\n", revisionText(prev.Version, prev.Commit), itemsText(prev.Grants.Items()))
	}
	if len(p.Commands) > 0 {
		fmt.Fprintf(w, "  commands: %s\n", termsafe.Escape(strings.Join(p.Commands, ", ")))
	}
	e := &res.Entry
	granted := install.Grants{Capabilities: e.Capabilities, Hooks: e.Hooks}
	var shown []string
	for _, it := range granted.Items() {
		if it != install.GrantHooks {
			it = e.Capabilities.Label(manifest.Capability(it))
		}
		shown = append(shown, it)
	}
	if len(shown)+len(res.Denied) > 0 {
		line := "  granted: " + itemsText(shown)
		if len(res.Denied) > 0 {
			line += "; denied: " + strings.Join(res.Denied, ", ")
		}
		fmt.Fprintln(w, line)
	}
}

// installHint gives an install that failed for src the hint that fixes
// it, as a command that works as printed.
func installHint(in *install.Installer, err error, src string, opts *installOptions) error {
	args := []string{"plugins", "install", registry.RedactText(src)}
	if opts.Force {
		args = append(args, "--force")
	}
	if opts.Copy {
		args = append(args, "--copy")
	}
	if errors.Is(err, context.Canceled) {
		// The user's own Ctrl+C, whichever step it stopped (a build
		// among them): nobody's fault, and the install is undone.
		return withCode(CodeInterrupted, errors.New("interrupted: nothing was installed"), "")
	}
	var ai *install.AlreadyInstalledError
	if errors.As(err, &ai) {
		consent := consentArgs(opts.consentFlags)
		if len(consent) == 0 {
			// Keep what it is granted now: a script has no one to ask.
			consent = []string{"--grant", install.GrantNone}
			if file, lerr := in.Store.Load(); lerr == nil {
				if p, ok := file.Get(ai.Plugin); ok {
					consent[1] = grantList(install.Grants{Capabilities: p.Capabilities, Hooks: p.Hooks}.Items())
				}
			}
		}
		reinstall := commandLine(append(append(args, "--force"), consent...)...)
		return withCode(CodeAlreadyInstalled, err, "to reinstall it: "+reinstall+"; to see or change its grants: "+commandLine("plugins", "info", ai.Plugin))
	}
	if alt := prefixedRepo(in, err, src); alt != "" {
		return withCode(errorCode(err), err, "plugin repositories are named fledge-plugin-<name>; if this is one: "+
			commandLine(append([]string{"plugins", "install", alt}, args[3:]...)...))
	}
	return withApprovalHint(err, func(ae *install.ApprovalError) string { return retryWithGrants(ae, args...) })
}

// prefixedRepo is owner/fledge-plugin-<repo>@ref for an owner/repo source
// that named no repository (tester/capdemo for
// tester/fledge-plugin-capdemo), or "".
func prefixedRepo(in *install.Installer, err error, src string) string {
	if !errors.Is(err, transport.ErrRepositoryNotFound) {
		return ""
	}
	s, perr := registry.ParseSource(src, in.GitHubBase)
	if perr != nil || !s.Shorthand || strings.HasPrefix(s.Name, "fledge-plugin-") {
		return ""
	}
	owner, _, _ := strings.Cut(s.Display, "/")
	alt := owner + "/fledge-plugin-" + s.Name
	if s.Ref != "" {
		alt += "@" + s.Ref
	}
	return alt
}

// nearestRegistryName is the registry name closest to name (within two
// edits), or "" when none is or the registry cannot list its plugins.
func nearestRegistryName(ctx context.Context, idx registry.Index, name string) string {
	res, err := idx.Search(ctx, registry.Query{})
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range res.Entries {
		names = append(names, lockfile.ShortName(e.Name))
	}
	if near := nearest(lockfile.ShortName(name), names); len(near) > 0 {
		return near[0]
	}
	return ""
}

// registryLookup resolves a registry name to its repository through the
// configured index (or GitHub's topic search), opened on first use.
func registryLookup(f *Factory, paths home.Paths, cfg *config.Config) func(context.Context, registry.Source) (registry.Source, error) {
	var idx registry.Index
	var o registry.Options
	return func(ctx context.Context, s registry.Source) (registry.Source, error) {
		if idx == nil {
			var err error
			if idx, o, err = openRegistry(f, paths, cfg); err != nil {
				return s, err
			}
		}
		resolved, res, err := registry.Resolve(ctx, idx, s, f.Getenv("FLEDGE_GITHUB_URL"))
		if res != nil && res.Stale != nil {
			fmt.Fprintf(f.IO.ErrOut, "note: %s\n", termsafe.EscapeText(res.Stale.Note()))
		}
		var nf *registry.NotFoundError
		var amb *registry.AmbiguousError
		switch {
		case errors.As(err, &nf):
			hint := "search the registry: " + commandLine("plugins", "search", s.Name)
			if near := nearestRegistryName(ctx, idx, s.Name); near != "" {
				hint = fmt.Sprintf("did you mean %s? install it: %s; or %s", near, commandLine("plugins", "install", near), hint)
			}
			return s, withCode(CodeNotFound, err, hint)
		case errors.As(err, &amb):
			return s, withCode(CodeAmbiguous, err, "install one by its repository, such as: "+commandLine("plugins", "install", registry.RedactText(amb.Entries[0].Repo)))
		case err != nil:
			return s, registryError(err, o)
		}
		fmt.Fprintf(f.IO.ErrOut, "%s resolves to %s\n", termsafe.Escape(s.Name), termsafe.Escape(resolved.Display))
		return resolved, nil
	}
}

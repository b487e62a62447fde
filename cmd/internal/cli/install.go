package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

type installOptions struct {
	consentFlags
	Sources  []string
	Force    bool
	Copy     bool
	Defaults bool
	JSON     bool
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
	in, cfg, err := newInstaller(f, opts.consentFlags, true)
	if err != nil {
		return err
	}
	in.Force, in.Copy = opts.Force, opts.Copy
	if f.IO.ShowProgress() && !opts.JSON {
		in.Git.Progress = newFetchProgress(newRunUI(f.IO, f.Prompter))
	}
	in.LookupName = registryLookup(f, in.Paths, cfg)

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
			continue
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(f.IO.ErrOut, "%s %s: %s\n", f.IO.ErrStyle().Warn("warning:"), termsafe.Escape(res.Entry.Name), termsafe.EscapeText(w))
		}
		pj := toPluginJSON(&res.Entry, in.Trust)
		doc.Installed = append(doc.Installed, toInstalledJSON(pj))
		if !opts.JSON {
			printInstalled(f.IO.Out, f.IO.OutStyle(), pj, res.Replaced)
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

func printInstalled(w io.Writer, st Style, p pluginJSON, replaced bool) {
	verb := "Installed"
	if replaced {
		verb = "Reinstalled"
	}
	rev := ""
	if p.Commit != "" {
		rev = ", commit " + p.Commit[:min(12, len(p.Commit))]
	}
	fmt.Fprintf(w, "%s %s %s %s (%s%s)\n", st.OK("✓"), verb, st.Bold(termsafe.Escape(p.Name)), termsafe.Escape(p.Version), st.Tier(p.TrustTier), rev)
	if len(p.Commands) > 0 {
		fmt.Fprintf(w, "  commands: %s\n", termsafe.Escape(strings.Join(p.Commands, ", ")))
	}
	var granted []string
	for _, c := range []struct {
		name string
		on   bool
	}{{"exec", p.Capabilities.Exec}, {"store", p.Capabilities.Store}, {"metadata", p.Capabilities.Metadata}, {"network", p.Capabilities.Network}} {
		if c.on {
			granted = append(granted, c.name)
		}
	}
	if p.Capabilities.Filesystem != "none" {
		granted = append(granted, "filesystem ("+termsafe.Escape(p.Capabilities.Filesystem)+")")
	}
	if len(granted) > 0 {
		fmt.Fprintf(w, "  granted: %s\n", strings.Join(granted, ", "))
	}
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
		res, err := idx.Lookup(ctx, s.Name)
		if err != nil {
			return s, registryError(err, o)
		}
		if res.Stale != nil {
			fmt.Fprintf(f.IO.ErrOut, "note: %s\n", termsafe.EscapeText(res.Stale.Note()))
		}
		switch len(res.Entries) {
		case 0:
			return s, withCode(CodeNotFound, fmt.Errorf("no plugin named %q in the registry", s.Name), "search with: fledge plugins search "+s.Name)
		case 1:
			base := f.Getenv("FLEDGE_GITHUB_URL")
			resolved, err := registry.ParseSource(registry.InstallSource(res.Entries[0], base), base)
			if err != nil {
				return s, fmt.Errorf("registry entry %q: %w", res.Entries[0].Name, err)
			}
			resolved.Ref = s.Ref
			fmt.Fprintf(f.IO.ErrOut, "%s resolves to %s\n", termsafe.Escape(s.Name), termsafe.Escape(resolved.Display))
			return resolved, nil
		}
		names := make([]string, len(res.Entries))
		for i, e := range res.Entries {
			names[i] = termsafe.Escape(e.Name) + " (" + termsafe.Escape(e.Repo) + ")"
		}
		return s, withCode(CodeAmbiguous, fmt.Errorf("%q matches several plugins: %s", s.Name, strings.Join(names, ", ")), "install one by owner/repo")
	}
}

// capabilityMeaning explains each grant in the approval prompt.
var capabilityMeaning = map[string]string{
	"exec":       "run shell commands through fledge",
	"store":      "keep data between runs",
	"metadata":   "read project metadata and (filtered) environment",
	"network":    "make network requests (recorded; not enforceable for native binaries)",
	"filesystem": "access files (recorded; not enforceable for native binaries)",
	"hooks":      "run the hooks and build command listed above",
}

// askApproval shows what a plugin requests on the terminal and lets the
// user grant all, some or none of it.
func askApproval(f *Factory, r install.Request) (install.Decision, error) {
	w := f.IO.ErrOut
	fmt.Fprintf(w, "\n%s %s from %s [%s]\n", termsafe.Escape(r.Plugin), termsafe.Escape(r.Version), termsafe.Escape(r.Source), r.Tier)
	if r.Description != "" {
		fmt.Fprintf(w, "  %s\n", termsafe.Escape(r.Description))
	}
	if len(r.Hooks) > 0 {
		fmt.Fprintln(w, "It would run:")
		escaped := false
		for _, h := range r.Hooks {
			note := ""
			if h.Auto {
				note = " (detected build command)"
			}
			// Byte-exact, on one line: validation refused anything else.
			shown := termsafe.Escape(h.Command)
			escaped = escaped || shown != h.Command
			fmt.Fprintf(w, "  %-16s %s%s\n", h.Name, shown, note)
		}
		if escaped {
			fmt.Fprintln(w, `  (shown escaped: \n is a newline, \t a tab, \\ a backslash)`)
		}
	}
	// Preselected items come first: huh scrolls a multi-select to its first
	// selected option, which would hide anything above it (such as exec
	// when only store is preselected).
	var items, rest []string
	for _, it := range r.Items() {
		if !r.NeedsExplicitGrant(it) {
			items = append(items, it)
		} else {
			rest = append(rest, it)
		}
	}
	defaults := make([]int, len(items))
	for i := range items {
		defaults[i] = i
	}
	items = append(items, rest...)
	options := make([]string, len(items))
	for i, it := range items {
		label := it
		meaning := capabilityMeaning[it]
		if it == string(manifest.CapFilesystem) {
			label += " (" + termsafe.Escape(r.Capabilities.Filesystem) + ")"
			if !manifest.KnownFilesystemScope(r.Capabilities.Filesystem) {
				meaning = "access every file: an unknown scope has no bound (recorded; not enforceable for native binaries)"
			}
		}
		options[i] = fmt.Sprintf("%-12s %s", label, meaning)
	}
	desc := "space toggles, enter confirms; unselected items are denied"
	if r.Tier == registry.TierUnverified {
		desc = "unverified source: review before granting exec, network or hooks. " + desc
	}
	picked, err := f.Prompter.MultiSelect("Grant "+termsafe.Escape(r.Plugin)+":", desc, options, defaults)
	if err != nil {
		return install.Decision{}, err
	}
	keep := map[manifest.Capability]bool{}
	var d install.Decision
	for _, i := range picked {
		if i < 0 || i >= len(items) {
			continue
		}
		if items[i] == install.GrantHooks {
			d.Hooks = true
		} else {
			keep[manifest.Capability(items[i])] = true
		}
	}
	d.Capabilities = r.Capabilities.Only(keep)
	return d, nil
}

// githubAuth sends GITHUB_TOKEN (or GH_TOKEN) to github.com over https only.
func githubAuth(getenv func(string) string) func(string) transport.AuthMethod {
	return func(url string) transport.AuthMethod {
		tok := getenv("GITHUB_TOKEN")
		if tok == "" {
			tok = getenv("GH_TOKEN")
		}
		if tok == "" || !strings.HasPrefix(strings.ToLower(url), "https://github.com/") {
			return nil
		}
		return &http.BasicAuth{Username: "x-access-token", Password: tok}
	}
}

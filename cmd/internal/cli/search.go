package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Error codes of the registry.
const (
	// CodeRegistryUnavailable: the registry could not be reached and no
	// cached copy could answer.
	CodeRegistryUnavailable = "registry_unavailable"
	// CodeRegistryInvalid: the registry answered with a malformed index.
	CodeRegistryInvalid = "registry_invalid"
)

// Widths of the search table's text columns, in runes. Registry text is
// hostile: nothing it sends may push the table off the screen.
const (
	searchNameWidth     = 40
	searchVersionWidth  = 16
	searchSourceWidth   = 60
	searchDescTTYWidth  = 60
	searchDescPipeWidth = 300
)

type searchOptions struct {
	Query string
	JSON  bool
}

func newSearchCmd(f *Factory) *cobra.Command {
	opts := &searchOptions{}
	cmd := &cobra.Command{
		Use:   "search [query]",
		Short: "Search the plugin registry",
		Long: `Search the plugin registry for plugins whose name, description or topics
contain every word of the query (all plugins without one).

The registry is the index at $FLEDGE_REGISTRY_URL or registry.url in
config.toml; without one, GitHub repositories with the fledge-plugin topic
(at $FLEDGE_GITHUB_API, authenticated with $GH_TOKEN or $GITHUB_TOKEN when
set). The trust tier shown is fledge's own, computed from the repository.`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if len(opts.Query) > registry.MaxQueryLen || !utf8.ValidString(opts.Query) {
				return usageErrorf("the query must be valid UTF-8 of at most %d bytes", registry.MaxQueryLen)
			}
			return searchRun(c.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}

// searchDoc is the --json document.
type searchDoc struct {
	SchemaVersion int                `json:"schema_version"`
	Plugins       []searchPluginJSON `json:"plugins"`
}

// searchPluginJSON is one plugin found. Every string is sanitised: the
// registry is not trusted to keep escape sequences out.
type searchPluginJSON struct {
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	Version     string `json:"version"`
	Description string `json:"description"`
	Language    string `json:"language"`
	// TrustTier is fledge's verdict from the repository URL.
	TrustTier string `json:"trust_tier"`
	// ClaimedTrustTier is what the index says, for comparison only.
	ClaimedTrustTier string   `json:"claimed_trust_tier"`
	Repo             string   `json:"repo"`
	Source           string   `json:"source"`
	Install          string   `json:"install"`
	Stars            int      `json:"stars"`
	Topics           []string `json:"topics"`
	UpdatedAt        string   `json:"updated_at"`
	DefaultBranch    string   `json:"default_branch"`
}

func searchRun(ctx context.Context, f *Factory, opts *searchOptions) error {
	paths, err := f.Paths()
	if err != nil {
		return err
	}
	cfg, err := config.Load(paths.ConfigFile())
	if err != nil {
		return err
	}
	idx, o, err := openRegistry(f, paths, cfg)
	if err != nil {
		return err
	}
	res, err := idx.Search(ctx, opts.Query)
	if err != nil {
		return registryError(err, o)
	}
	noteRegistryResult(f, res)

	githubBase := f.Getenv("FLEDGE_GITHUB_URL")
	trusted := trustConfig(cfg)
	doc := searchDoc{SchemaVersion: SchemaVersion, Plugins: make([]searchPluginJSON, 0, len(res.Entries))}
	for _, e := range res.Entries {
		doc.Plugins = append(doc.Plugins, toSearchJSON(e, trusted, githubBase))
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, doc)
	}
	if len(doc.Plugins) == 0 {
		if opts.Query == "" {
			fmt.Fprintln(f.IO.ErrOut, "The registry lists no plugins.")
		} else {
			fmt.Fprintf(f.IO.ErrOut, "No plugins match %q.\n", opts.Query)
		}
		return nil
	}
	descWidth := searchDescPipeWidth
	if f.IO.OutTTY {
		descWidth = searchDescTTYWidth
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSTARS\tTIER\tSOURCE\tDESCRIPTION")
	for _, p := range doc.Plugins {
		version := p.Version
		if version == "" || version == "unknown" {
			version = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n",
			cell(p.Name, searchNameWidth), cell(version, searchVersionWidth), p.Stars, p.TrustTier,
			cell(p.Source, searchSourceWidth), cell(p.Description, descWidth))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(f.IO.ErrOut, "\nInstall one with: fledge plugins install <SOURCE>")
	return nil
}

// openRegistry returns the configured index (FLEDGE_REGISTRY_URL, else
// registry.url, else GitHub search) with its cache and the options it was
// built from, for registryError.
func openRegistry(f *Factory, paths home.Paths, cfg *config.Config) (registry.Index, registry.Options, error) {
	o := registry.OptionsFromEnv(f.Getenv, cfg.Registry.URL)
	o.CacheFile = paths.RegistryCacheFile()
	o.Now = f.Now
	o.UserAgent = "fledge/" + f.Version
	idx, err := registry.New(o)
	if err != nil {
		return nil, o, withCode(CodeFailed, err, "check "+registry.EnvRegistryURL+", registry.url in config.toml and "+registry.EnvGitHubAPI)
	}
	return idx, o, nil
}

func toSearchJSON(e registry.Entry, trusted registry.TrustConfig, githubBase string) searchPluginJSON {
	topics := make([]string, 0, len(e.Topics))
	for _, t := range e.Topics {
		topics = append(topics, termsafe.Escape(t))
	}
	updated := ""
	if !e.UpdatedAt.IsZero() {
		updated = e.UpdatedAt.UTC().Format(time.RFC3339)
	}
	// The index is hostile: what it says is escaped, never stripped, so
	// a name or source that differs from what it looks like shows it.
	return searchPluginJSON{
		Name:             termsafe.Escape(e.Name),
		Slug:             termsafe.Escape(e.Slug),
		Version:          termsafe.Escape(e.Version),
		Description:      termsafe.Escape(e.Description),
		Language:         termsafe.Escape(e.Language),
		TrustTier:        string(registry.TierOf(e.Repo, trusted)),
		ClaimedTrustTier: termsafe.Escape(e.ClaimedTier),
		Repo:             termsafe.Escape(e.Repo),
		Source:           termsafe.Escape(registry.InstallSource(e, githubBase)),
		Install:          termsafe.Escape(registry.InstallHint(e, githubBase)),
		Stars:            e.Stars,
		Topics:           topics,
		UpdatedAt:        updated,
		DefaultBranch:    termsafe.Escape(e.DefaultBranch),
	}
}

// cell fits sanitised text into a table cell of at most width runes.
// Tabs cannot survive termsafe.Escape, so the columns hold.
func cell(s string, width int) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "-"
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:width-1]), " ") + "…"
}

// noteRegistryResult tells a human on stderr that a result is stale or
// partial.
func noteRegistryResult(f *Factory, res *registry.Result) {
	if res.Stale != nil {
		fmt.Fprintf(f.IO.ErrOut, "note: %s\n", termsafe.EscapeText(res.Stale.Note()))
	}
	if res.Incomplete {
		fmt.Fprintf(f.IO.ErrOut, "note: showing the first %d matches; narrow the query to see others\n", len(res.Entries))
	}
}

// registryError gives a registry failure its code and the advice that fits.
func registryError(err error, o registry.Options) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	var ie *registry.IndexError
	if errors.As(err, &ie) {
		hint := "the registry's index is malformed; tell its maintainers"
		if o.RegistryURL != "" {
			hint += ", or unset " + registry.EnvRegistryURL + " (and registry.url) to search GitHub instead"
		}
		return withCode(CodeRegistryInvalid, err, hint)
	}
	if errors.Is(err, registry.ErrUnavailable) {
		var hint string
		switch {
		case registry.IsRateLimited(err) && o.Token == "":
			hint = "set GH_TOKEN or GITHUB_TOKEN to raise GitHub's rate limit"
		case registry.IsRateLimited(err):
			hint = "wait for GitHub's rate limit to reset"
		case o.RegistryURL != "":
			hint = "check your network and " + registry.EnvRegistryURL + "; once the index has been fetched, a cached copy answers when it is unreachable"
		default:
			hint = "check your network, or set " + registry.EnvRegistryURL + " to a plugin index"
		}
		return withCode(CodeRegistryUnavailable, err, hint)
	}
	return err
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/corvidlabs/fledge-go/config"
	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
	"github.com/corvidlabs/fledge-go/trust"
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

// searchDefaultLimit is how many results search shows unless --limit
// says otherwise (the Rust fledge's default).
const searchDefaultLimit = 20

type searchOptions struct {
	Query       registry.Query
	Tier        string
	Limit       int
	Interactive bool
	JSON        bool
}

func newSearchCmd(f *Factory) *cobra.Command {
	opts := &searchOptions{}
	cmd := &cobra.Command{
		Use:   "search [query]",
		Short: "Search the plugin registry",
		Long: `Search the plugin registry for plugins whose name, description or topics
contain every word of the query (all plugins without one), narrowed by
--author, --topic and --trust-tier, best matches first, at most --limit.

The registry is the index at $FLEDGE_REGISTRY_URL or registry.url in
config.toml; without one, GitHub repositories with the fledge-plugin topic
(at $FLEDGE_GITHUB_API, authenticated with $FLEDGE_GITHUB_TOKEN, $GITHUB_TOKEN
or $GH_TOKEN when set). The trust tier shown is fledge's own, computed from the repository.
With --interactive, pick one on the terminal to install.`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Query.Text = strings.Join(args, " ")
			if len(opts.Query.Text) > registry.MaxQueryLen || !utf8.ValidString(opts.Query.Text) {
				return usageErrorf("the query must be valid UTF-8 of at most %d bytes", registry.MaxQueryLen)
			}
			if err := opts.Query.Check(); err != nil {
				return &usageError{err: err}
			}
			if opts.Limit < 1 {
				return usageErrorf("--limit must be at least 1, not %d", opts.Limit)
			}
			if opts.Interactive && opts.JSON {
				return usageErrorf("--interactive and --json do not mix: --json prints the results for a script, --interactive asks a human to pick one")
			}
			return searchRun(c.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Query.Author, "author", "a", "", "only plugins of this GitHub user or organisation")
	fl.StringVarP(&opts.Query.Topic, "topic", "t", "", "only plugins with this topic (e.g. ci, rust, testing)")
	fl.StringVar(&opts.Tier, "trust-tier", "", "only plugins of this trust tier: official, team or unverified")
	fl.IntVarP(&opts.Limit, "limit", "l", searchDefaultLimit, "show at most this many results")
	fl.BoolVarP(&opts.Interactive, "interactive", "i", false, "pick a result on the terminal and install it")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON document")
	_ = cmd.RegisterFlagCompletionFunc("trust-tier", completeWords("official", "team", "unverified"))
	return cmd
}

// searchDoc is the --json document: the Rust fledge's {schema_version,
// results} (src/plugin/search.rs), each result a superset of its entry.
type searchDoc struct {
	SchemaVersion int                `json:"schema_version"`
	Results       []searchResultJSON `json:"results"`
}

// searchResultJSON is one plugin found. Every string is sanitised: the
// registry is not trusted to keep escape sequences out.
type searchResultJSON struct {
	// The Rust fledge's fields (src/search.rs, SearchResult::to_json):
	// owner and name are the repository's, full_name is owner/name.
	Owner       string   `json:"owner"`
	Name        string   `json:"name"`
	FullName    string   `json:"full_name"`
	Description string   `json:"description"`
	Stars       int      `json:"stars"`
	URL         string   `json:"url"`
	Topics      []string `json:"topics"`
	// TrustTier is fledge's verdict from the repository URL.
	TrustTier string `json:"trust_tier"`

	// PluginName is the name the registry gives the plugin.
	PluginName string `json:"plugin_name"`
	Slug       string `json:"slug"`
	Version    string `json:"version"`
	// DescriptionText is the registry's description as it is (empty when
	// there is none; description says "No description" then, as Rust's).
	DescriptionText string `json:"description_text"`
	Language        string `json:"language"`
	// ClaimedTrustTier is what the index says, for comparison only.
	ClaimedTrustTier string `json:"claimed_trust_tier"`
	Repo             string `json:"repo"`
	Source           string `json:"source"`
	Install          string `json:"install"`
	UpdatedAt        string `json:"updated_at"`
	DefaultBranch    string `json:"default_branch"`
}

// noDescription stands for a missing description, as in the Rust fledge
// (src/search.rs, parse_search_response).
const noDescription = "No description"

func searchRun(ctx context.Context, f *Factory, opts *searchOptions) error {
	var tier trust.Tier
	if opts.Tier != "" {
		t, err := trust.ParseTier(opts.Tier)
		if err != nil {
			return &usageError{err: err}
		}
		tier = t
	}
	if opts.Interactive && !f.IO.CanPrompt() {
		return usageErrorf("--interactive needs a terminal to pick on; without one, install a result by its source: fledge plugins install <owner/repo>")
	}
	paths, err := f.Paths()
	if err != nil {
		return err
	}
	// Results rank as installed plugins do: under the trust in force.
	set, _, err := describeSettings(f, paths)
	if err != nil {
		return err
	}
	cfg := set.Config()
	idx, o, err := openRegistry(f, paths, cfg)
	if err != nil {
		return err
	}
	res, err := idx.Search(ctx, opts.Query)
	if err != nil {
		return registryError(err, o)
	}
	trusted, _ := set.Trust()
	res.Narrow(tier, trusted, opts.Limit)
	noteRegistryResult(f, res)

	githubBase := f.Getenv("FLEDGE_GITHUB_URL")
	doc := searchDoc{SchemaVersion: SchemaVersion, Results: make([]searchResultJSON, 0, len(res.Entries))}
	for _, e := range res.Entries {
		doc.Results = append(doc.Results, toSearchJSON(e, trusted, githubBase))
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, doc)
	}
	if len(doc.Results) == 0 {
		if opts.Query == (registry.Query{}) && tier == "" {
			fmt.Fprintln(f.IO.ErrOut, "The registry lists no plugins.")
		} else if opts.Query.Text == "" {
			fmt.Fprintln(f.IO.ErrOut, "No plugins match.")
		} else {
			fmt.Fprintf(f.IO.ErrOut, "No plugins match %q.\n", termsafe.Escape(opts.Query.Text))
		}
		return nil
	}
	if opts.Interactive {
		return searchPick(ctx, f, doc.Results)
	}
	printSearchTable(f.IO.Out, doc.Results, outWidth(f.IO))
	fmt.Fprintln(f.IO.ErrOut, "\nInstall one with: fledge plugins install <SOURCE>")
	fmt.Fprintln(f.IO.ErrOut, "Or pick one with: fledge plugins search --interactive")
	return nil
}

// printSearchTable writes the results as a table. On a terminal width
// columns wide (0: not a terminal) every row fits: the description, then
// the source, then the name are cut to make room (with "…", as gh does),
// and the description is left out when nothing of it would fit.
func printSearchTable(w io.Writer, results []searchResultJSON, width int) {
	header := []string{"NAME", "VERSION", "STARS", "TIER", "SOURCE", "DESCRIPTION"}
	descCap := searchDescPipeWidth
	if width > 0 {
		descCap = searchDescTTYWidth
	}
	caps := []int{searchNameWidth, searchVersionWidth, 0, 0, searchSourceWidth, descCap}
	rows := make([][]string, len(results))
	for i, p := range results {
		version := p.Version
		if version == "" || version == "unknown" {
			version = "-"
		}
		rows[i] = []string{p.PluginName, version, strconv.Itoa(p.Stars), p.TrustTier, p.Source, p.DescriptionText}
	}
	cols := make([]int, len(header))
	measure := func() {
		for c := range header {
			cols[c] = termsafe.Width(header[c])
			for _, r := range rows {
				cols[c] = max(cols[c], termsafe.Width(cell(r[c], capOr(caps[c]))))
			}
			cols[c] = min(cols[c], capOr(caps[c]))
		}
	}
	measure()
	const gap = 2
	if width > 0 {
		used := func() int {
			n := 0
			for c := range cols {
				n += cols[c] + gap
			}
			return n - gap
		}
		const name, source, desc = 0, 4, 5
		const minName, minSource, minDesc = 12, 12, len("DESCRIPTION")
		for _, c := range []int{desc, source, name} {
			if over := used() - width; over > 0 {
				floor := map[int]int{desc: minDesc, source: minSource, name: minName}[c]
				cols[c] = max(floor, cols[c]-over)
			}
		}
		if used() > width { // too narrow even so: the description goes
			header, cols = header[:desc], cols[:desc]
		}
	}
	for i, r := range append([][]string{header}, rows...) {
		var b strings.Builder
		for c := range cols {
			v := r[c]
			if c > 0 {
				b.WriteString(strings.Repeat(" ", gap))
			}
			if i > 0 { // the header stays as it is
				v = cell(v, cols[c])
			}
			b.WriteString(v)
			if c < len(cols)-1 {
				b.WriteString(strings.Repeat(" ", max(cols[c]-termsafe.Width(v), 0)))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// capOr is a column's cap, or no cap for 0.
func capOr(c int) int {
	if c == 0 {
		return 1 << 20
	}
	return c
}

// outWidth is the width of the terminal stdout is, or 0 when it is none.
func outWidth(s *IOStreams) int {
	if !s.OutTTY {
		return 0
	}
	if f, ok := s.Out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// searchPick lets the user choose a result on the terminal and installs
// it, asking for approval as install does.
// Each row leads with the plugin's name: a long source (a file:// path)
// is cut to its width, and its tail is where the name would be.
func searchPick(ctx context.Context, f *Factory, results []searchResultJSON) error {
	nameWidth := 0
	for _, r := range results {
		nameWidth = max(nameWidth, utf8.RuneCountInString(cell(r.PluginName, searchNameWidth)))
	}
	// Each option fits the terminal's width beside the picker's cursor and
	// margin, cut with "…" rather than wrapped.
	fit := 1 << 20
	if f.IO.TTYOut != nil {
		if w, _, err := term.GetSize(int(f.IO.TTYOut.Fd())); err == nil && w > 20 {
			fit = w - 4
		}
	}
	options := make([]string, len(results))
	for i, r := range results {
		options[i] = termsafe.Truncate(fmt.Sprintf("%-*s  %-40s [%s]  %s", nameWidth, cell(r.PluginName, searchNameWidth), cell(r.Source, searchSourceWidth),
			r.TrustTier, cell(r.DescriptionText, searchDescTTYWidth)), fit)
	}
	i, err := f.Prompter.Select(ctx, Question{Title: "Select a plugin to install", Description: "enter installs it; Esc cancels"}, options, 0)
	if errors.Is(err, errPromptAborted) {
		// As every abandoned question: exit 130, so a script sees that
		// nothing was chosen.
		fmt.Fprintln(f.IO.ErrOut, "Cancelled.")
		return &exitCodeError{code: ExitInterrupted}
	}
	if err != nil {
		return err
	}
	if i < 0 || i >= len(results) {
		return fmt.Errorf("the prompt chose %d of %d results", i, len(results))
	}
	fmt.Fprintf(f.IO.ErrOut, "Installing %s\n", results[i].Source)
	return installRun(ctx, f, &installOptions{Sources: []string{results[i].Source}})
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

func toSearchJSON(e registry.Entry, trusted trust.Config, githubBase string) searchResultJSON {
	topics := make([]string, 0, len(e.Topics))
	for _, t := range e.Topics {
		topics = append(topics, termsafe.Escape(t))
	}
	updated := ""
	if !e.UpdatedAt.IsZero() {
		updated = e.UpdatedAt.UTC().Format(time.RFC3339)
	}
	owner, name := registry.RepoOwnerName(e.Repo)
	if name == "" {
		name = e.Name
	}
	full := name
	if owner != "" {
		full = owner + "/" + name
	}
	// The index is hostile: what it says is escaped, never stripped, so
	// a name or source that differs from what it looks like shows it.
	desc := termsafe.Escape(e.Description)
	rustDesc := desc
	if strings.TrimSpace(rustDesc) == "" {
		rustDesc = noDescription
	}
	return searchResultJSON{
		Owner:            termsafe.Escape(owner),
		Name:             termsafe.Escape(name),
		FullName:         termsafe.Escape(full),
		Description:      rustDesc,
		Stars:            e.Stars,
		URL:              termsafe.Escape(registry.WebURL(e.Repo)),
		Topics:           topics,
		TrustTier:        string(trusted.Of(e.Repo)),
		PluginName:       termsafe.Escape(e.Name),
		Slug:             termsafe.Escape(e.Slug),
		Version:          termsafe.Escape(e.Version),
		DescriptionText:  desc,
		Language:         termsafe.Escape(e.Language),
		ClaimedTrustTier: termsafe.Escape(e.ClaimedTier),
		Repo:             termsafe.Escape(e.Repo),
		Source:           termsafe.Escape(registry.InstallSource(e, githubBase)),
		Install:          termsafe.Escape(commandLine("plugins", "install", registry.InstallSource(e, githubBase))),
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
	return termsafe.Truncate(s, width)
}

// noteRegistryResult tells a human on stderr that a result is stale or
// partial.
func noteRegistryResult(f *Factory, res *registry.Result) {
	if res.Stale != nil {
		fmt.Fprintf(f.IO.ErrOut, "note: %s\n", termsafe.EscapeText(res.Stale.Note()))
	}
	if res.Incomplete {
		fmt.Fprintf(f.IO.ErrOut, "note: showing the first %d matches; narrow the query or raise --limit to see others\n", len(res.Entries))
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
			hint = "set " + registry.TokenEnvText + " to raise GitHub's rate limit"
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

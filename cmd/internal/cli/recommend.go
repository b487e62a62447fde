package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/project"
	"github.com/corvidlabs/fledge-go/registry"
)

type recommendOptions struct{ JSON bool }

func newRecommendCmd(f *Factory) *cobra.Command {
	opts := &recommendOptions{}
	cmd := &cobra.Command{
		Use:   "recommend",
		Short: "Suggest plugins for the project in the current directory",
		Long: `Suggest plugins for the project in the current directory, from its language
(Cargo.toml, package.json, go.mod, …) and tooling (a Dockerfile, .github), as
the Rust fledge does; plugins already installed are left out. On a terminal,
offer to install them all (each still asks for approval).`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return recommendRun(c.Context(), f, opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}

// recommendDoc is the --json document, the Rust fledge's
// (src/plugin/recommend.rs, recommend_plugins).
type recommendDoc struct {
	SchemaVersion   int                       `json:"schema_version"`
	Action          string                    `json:"action"`
	Language        string                    `json:"language"`
	InstalledCount  int                       `json:"installed_count"`
	Recommendations []registry.Recommendation `json:"recommendations"`
}

func recommendRun(ctx context.Context, f *Factory, opts *recommendOptions) error {
	dir, err := f.Getwd()
	if err != nil {
		return fmt.Errorf("current directory: %w", err)
	}
	store, _, err := f.Lockfile()
	if err != nil {
		return err
	}
	file, err := store.Load()
	if err != nil {
		return err
	}
	lang := project.Language(dir)
	signals := registry.ProjectSignals{
		Docker: project.Has(dir, "Dockerfile") || project.Has(dir, "docker-compose.yml"),
		GitHub: project.Has(dir, ".github"),
	}
	githubBase := f.Getenv("FLEDGE_GITHUB_URL")
	doc := recommendDoc{SchemaVersion: SchemaVersion, Action: "plugins_recommend", Language: lang,
		InstalledCount: len(file.Plugins), Recommendations: []registry.Recommendation{}}
	for _, r := range registry.Recommend(lang, signals) {
		if !recommendationInstalled(file, r, githubBase) {
			doc.Recommendations = append(doc.Recommendations, r)
		}
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, doc)
	}
	fmt.Fprintf(f.IO.ErrOut, "Detected project type: %s\n", lang)
	if len(doc.Recommendations) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "All recommended plugins are already installed.")
		return nil
	}
	width := 0
	for _, r := range doc.Recommendations {
		width = max(width, len(r.Repo))
	}
	for _, r := range doc.Recommendations {
		fmt.Fprintf(f.IO.Out, "%-*s  %s\n", width, r.Repo, r.Reason)
	}
	if !f.IO.CanPrompt() {
		fmt.Fprintln(f.IO.ErrOut, "\nInstall with: fledge plugins install <owner/repo>")
		return nil
	}
	all, err := f.Prompter.Confirm(ctx, Question{Title: fmt.Sprintf("Install all %d recommended plugins?", len(doc.Recommendations)),
		Description: "each shows what it requests and asks for approval"}, true)
	if err != nil {
		return err
	}
	if !all {
		fmt.Fprintln(f.IO.ErrOut, "Install individually with: fledge plugins install <owner/repo>")
		return nil
	}
	sources := make([]string, len(doc.Recommendations))
	for i, r := range doc.Recommendations {
		sources[i] = r.Repo
	}
	return installRun(ctx, f, &installOptions{Sources: sources})
}

// recommendationInstalled reports whether r is installed: a plugin came
// from its repository, or one of its name is installed (a second could not
// be).
func recommendationInstalled(file *lockfile.File, r registry.Recommendation, githubBase string) bool {
	_, name, _ := strings.Cut(r.Repo, "/")
	for _, p := range file.Plugins {
		if strings.EqualFold(p.Name, name) || strings.EqualFold(strings.SplitN(p.Source, "@", 2)[0], r.Repo) ||
			registry.IsSource(r.Repo, p.URL, githubBase) || registry.IsSource(r.Repo, p.Source, githubBase) {
			return true
		}
	}
	return false
}

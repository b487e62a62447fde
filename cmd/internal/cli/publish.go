package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/publish"
	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// CodePublishFailed: GitHub refused or could not be reached, or the push
// failed.
const CodePublishFailed = "publish_failed"

// defaultPublishDescription is the Rust fledge's, for a plugin without one.
const defaultPublishDescription = "A fledge plugin"

type publishOptions struct {
	Dir         string
	Org         string
	Private     bool
	Description string
	Yes         bool
	JSON        bool
}

func newPublishCmd(f *Factory) *cobra.Command {
	opts := &publishOptions{Dir: "."}
	cmd := &cobra.Command{
		Use:   "publish [dir]",
		Short: "Publish a plugin to GitHub",
		Long: `Publish the plugin in dir (default: the current directory) to GitHub, as the
Rust fledge does: validate it, create the repository (named after the plugin,
under --org or the token's user) or, if it exists and you agree (--yes, or on
a terminal), update it; add the fledge-plugin topic; commit the directory's
changes and push its branch.

It needs a token with the repo scope in FLEDGE_GITHUB_TOKEN, GITHUB_TOKEN or
GH_TOKEN; the API is $FLEDGE_GITHUB_API (default https://api.github.com). It
never force-pushes: if the repository has commits the directory lacks, pull
them first.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("publish takes at most one directory")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			return publishRun(c.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Org, "org", "", "publish under this GitHub organisation (default: the token's user)")
	fl.BoolVar(&opts.Private, "private", false, "create the repository private")
	fl.StringVar(&opts.Description, "description", "", "the repository's description (default: the plugin's)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "push an update to a repository that already exists without asking")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}

// publishDoc is the --json document: the Rust fledge's (src/publish.rs,
// build_publish_envelope, with src/plugin/publish.rs's plugin and
// install_hint) and what fledge pushed.
type publishDoc struct {
	SchemaVersion int               `json:"schema_version"`
	Action        string            `json:"action"`
	Cancelled     bool              `json:"cancelled"`
	Repo          publishRepoJSON   `json:"repo"`
	Topic         string            `json:"topic"`
	Plugin        publishPluginJSON `json:"plugin"`
	InstallHint   string            `json:"install_hint"`
	// Branch and Commit are what was pushed (empty when cancelled);
	// Committed says whether publish committed the directory's changes,
	// UpToDate whether the repository already had them.
	Branch             string `json:"branch"`
	Commit             string `json:"commit"`
	Committed          bool   `json:"committed"`
	UpToDate           bool   `json:"up_to_date"`
	DescriptionUpdated bool   `json:"description_updated"`
	// Tag is the release tag pushed (v<version>), TagSigned whether the
	// author's git signed it.
	Tag       string `json:"tag"`
	TagSigned bool   `json:"tag_signed"`
}

type publishRepoJSON struct {
	Owner   string `json:"owner"`
	Name    string `json:"name"`
	URL     string `json:"url"`
	Created bool   `json:"created"`
	Private bool   `json:"private"`
	// CloneURL is where the branch was pushed.
	CloneURL string `json:"clone_url"`
}

type publishPluginJSON struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

func publishRun(ctx context.Context, f *Factory, opts *publishOptions) error {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("%s is not a directory: point publish at a plugin's directory", opts.Dir)
	}
	if u := termsafe.FirstUnsafe(opts.Description, false); u != nil {
		return usageErrorf("--description must be one line of plain text: it holds %s", u)
	}
	token := registry.TokenFromEnv(f.Getenv)
	if token == "" {
		return withCode(CodePublishFailed, publish.ErrNoToken, "set "+registry.TokenEnvText+" to a token with the repo scope")
	}
	doc, m, err := checkPlugin(dir)
	if err != nil {
		return err
	}
	if !doc.Valid {
		return withCode(CodeInvalidManifest, fmt.Errorf("%s is not a valid plugin: %s", dir, strings.Join(doc.Errors, "; ")),
			"fix it and check with: "+commandLine("plugins", "validate", opts.Dir))
	}
	desc := opts.Description
	if desc == "" {
		desc = m.Plugin.Description
	}
	if desc == "" {
		desc = defaultPublishDescription
	}
	req := publish.Request{
		Dir: dir, Org: opts.Org, Name: m.Plugin.Name, Description: desc, Private: opts.Private,
		CommitMessage: "Publish fledge plugin", Author: gitAuthor(f), Log: f.IO.ErrOut,
		Tag: "v" + m.Plugin.Version,
	}
	if !opts.Yes {
		req.ConfirmUpdate = func(owner, name string) (bool, error) {
			if !f.IO.CanPrompt() {
				return false, withCode(CodeApprovalRequired, fmt.Errorf("%s/%s already exists on GitHub", owner, name),
					"to push an update to it: "+publishCommand(opts))
			}
			return f.Prompter.Confirm(ctx, Question{Title: fmt.Sprintf("Repository %s/%s already exists. Push an update?", owner, name),
				Description: "fledge commits the directory's changes and pushes its branch (never forcing)"}, false)
		}
	}
	fmt.Fprintf(f.IO.ErrOut, "Publishing %s as %s\n", termsafe.Escape(dir), termsafe.Escape(m.Plugin.Name))
	res, err := publish.Publish(ctx, publish.Options{
		API: f.Getenv(registry.EnvGitHubAPI), Token: token, UserAgent: "fledge/" + f.Version,
		Git: publish.ExecGit(gitEnv(f)),
	}, req)
	if err != nil {
		var coded CodedError
		if errors.As(err, &coded) || errors.Is(err, context.Canceled) {
			return err
		}
		return withCode(CodePublishFailed, err, publishHint(err))
	}
	out := publishDoc{
		SchemaVersion: SchemaVersion, Action: "publish", Cancelled: res.Cancelled,
		Repo: publishRepoJSON{Owner: res.Owner, Name: res.Name, URL: termsafe.Escape(res.URL), Created: res.Created,
			Private: res.Private, CloneURL: termsafe.Escape(registry.RedactText(res.CloneURL))},
		Topic:       publish.Topic,
		Plugin:      publishPluginJSON{Name: m.Plugin.Name, Version: m.Plugin.Version, Description: desc},
		InstallHint: commandLine("plugins", "install", res.Owner+"/"+res.Name),
		Branch:      res.Branch, Commit: res.Commit, Committed: res.Committed, UpToDate: res.UpToDate,
		DescriptionUpdated: res.DescriptionUpdated, Tag: res.Tag, TagSigned: res.TagSigned,
	}
	if opts.JSON {
		return writeJSON(f.IO.Out, out)
	}
	if res.Cancelled {
		fmt.Fprintln(f.IO.ErrOut, "Cancelled: nothing was changed.")
		return nil
	}
	fmt.Fprintf(f.IO.Out, "%s Published %s to %s\n", f.IO.OutStyle().OK("✓"), termsafe.Escape(m.Plugin.Name), termsafe.Escape(res.URL))
	fmt.Fprintf(f.IO.Out, "Install with: %s\n", termsafe.Escape(out.InstallHint))
	return nil
}

// gitAuthor signs publish's commit with GIT_AUTHOR_NAME and
// GIT_AUTHOR_EMAIL when both are set (as git does); otherwise git's
// configured user signs it.
func gitAuthor(f *Factory) *object.Signature {
	name, email := f.Getenv("GIT_AUTHOR_NAME"), f.Getenv("GIT_AUTHOR_EMAIL")
	if name == "" || email == "" {
		return nil
	}
	return &object.Signature{Name: name, Email: email, When: f.Now()}
}

// publishCommand is the publish command line opts came from, with --yes.
func publishCommand(opts *publishOptions) string {
	args := []string{"plugins", "publish", opts.Dir}
	if opts.Org != "" {
		args = append(args, "--org", opts.Org)
	}
	if opts.Private {
		args = append(args, "--private")
	}
	if opts.Description != "" {
		args = append(args, "--description", opts.Description)
	}
	return commandLine(append(args, "--yes")...)
}

func publishHint(err error) string {
	var ae *registry.StatusError
	switch {
	case errors.As(err, new(*publish.TagError)):
		return "nothing was pushed: fix what git says and publish again"
	case errors.Is(err, publish.ErrDiverged):
		return ""
	case errors.As(err, &ae) && (ae.Status == 401 || ae.Status == 403):
		return "check the token in " + registry.TokenEnvText + ": it needs the repo scope (and access to --org)"
	case errors.As(err, &ae):
		return ""
	}
	return "check your network and " + registry.EnvGitHubAPI
}

// gitEnv is the environment the git binary runs with to tag a release:
// this process's, with what the Factory's environment says of the
// variables that pick git's configuration, identity and signing keys.
func gitEnv(f *Factory) []string {
	env := os.Environ()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GNUPGHOME", "SSH_AUTH_SOCK",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		if v := f.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	// The tagger is who commits: the author publish commits as, unless
	// a committer is named (as publish's own commit does).
	if a := gitAuthor(f); a != nil && f.Getenv("GIT_COMMITTER_NAME") == "" {
		env = append(env, "GIT_COMMITTER_NAME="+a.Name, "GIT_COMMITTER_EMAIL="+a.Email)
	}
	return env
}

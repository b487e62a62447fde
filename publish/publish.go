package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/registry"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Topic marks a repository as a fledge plugin.
const Topic = registry.Topic

// Options configure the GitHub side. HTTP client and clock are injected so
// tests run against loopback servers.
type Options struct {
	// API is the REST API base (default https://api.github.com).
	API string
	// Token authenticates every request. Required.
	Token registry.Token
	// HTTPClient makes the requests (default: one with Timeout that
	// follows no redirect).
	HTTPClient *http.Client
	// Timeout bounds each request (default DefaultTimeout).
	Timeout time.Duration
	// PushTimeout bounds the push (default DefaultPushTimeout).
	PushTimeout time.Duration
	// UserAgent is sent with every request.
	UserAgent string
	// Git runs the git binary, which makes a release tag so that it is
	// signed the way the author's git signs (nil: ExecGit(nil)).
	Git GitRunner
}

// DefaultPushTimeout bounds a push.
const DefaultPushTimeout = 10 * time.Minute

// Request is one plugin to publish.
type Request struct {
	// Dir is the plugin's directory (a git work tree, or a directory that
	// becomes one on branch main).
	Dir string
	// Org publishes under an organisation; empty means the token's user.
	Org string
	// Name is the repository's name (the plugin's name).
	Name string
	// Description is the repository's description.
	Description string
	// Private makes a new repository private. An existing repository's
	// visibility is never changed.
	Private bool
	// CommitMessage commits the directory's changes, if it has any.
	CommitMessage string
	// Author signs that commit; nil takes git's configured user.
	Author *object.Signature
	// ConfirmUpdate is asked before pushing to a repository that already
	// exists; false cancels. Nil means yes.
	ConfirmUpdate func(owner, name string) (bool, error)
	// Tag is the release tag to make at the published commit and push
	// with the branch ("" for none): signed when the author's git is set
	// up to sign (see releaseTag).
	Tag string
	// Log receives one line per step.
	Log io.Writer
}

// Result is what Publish did.
type Result struct {
	Owner string
	Name  string
	// URL is the repository's web address; CloneURL is where the branch
	// was pushed.
	URL      string
	CloneURL string
	// Created is set when Publish created the repository.
	Created bool
	// Private is the repository's visibility.
	Private bool
	// Cancelled is set when ConfirmUpdate declined: nothing was changed.
	Cancelled bool
	// DescriptionUpdated is set when an existing repository's
	// description was changed to Request.Description.
	DescriptionUpdated bool
	// TopicAdded is set when the topic was not there before.
	TopicAdded bool
	// Branch and Commit are what was pushed; Committed says whether
	// Publish made that commit (the directory had changes).
	Branch    string
	Commit    string
	Committed bool
	// UpToDate is set when the remote already had the commit.
	UpToDate bool
	// Tag is the release tag pushed ("" for none); TagSigned says whether
	// it carries a signature, TagExisted whether it was there before.
	Tag        string
	TagSigned  bool
	TagExisted bool
	// TagNote says why Request.Tag was not pushed (it names an earlier
	// commit).
	TagNote string
}

// Publish puts req.Dir on GitHub: it finds the owner, creates the
// repository (or, with ConfirmUpdate's consent, updates the existing
// one's description), adds the fledge-plugin topic, commits the
// directory's changes and pushes its branch. It never force-pushes.
func Publish(ctx context.Context, o Options, req Request) (*Result, error) {
	a, err := newAPI(o)
	if err != nil {
		return nil, err
	}
	if !validRepoName(req.Name) {
		return nil, fmt.Errorf("%q cannot be a GitHub repository name: use letters, digits, '-', '_' and '.'", termsafe.Truncate(req.Name, 60))
	}
	if req.Org != "" && !validOwner(req.Org) {
		return nil, fmt.Errorf("organisation %q: want a GitHub organisation name (letters, digits and '-')", termsafe.Truncate(req.Org, 60))
	}
	logf := func(format string, args ...any) {
		if req.Log != nil {
			fmt.Fprintf(req.Log, format+"\n", args...)
		}
	}
	owner := req.Org
	if owner == "" {
		if owner, err = a.user(ctx); err != nil {
			return nil, err
		}
	}
	res := &Result{Owner: owner, Name: req.Name}
	r, err := a.getRepo(ctx, owner, req.Name)
	if err != nil {
		return nil, err
	}
	if r != nil {
		res.Private = r.Private
		if req.ConfirmUpdate != nil {
			ok, err := req.ConfirmUpdate(owner, req.Name)
			if err != nil {
				return nil, err
			}
			if !ok {
				res.Cancelled, res.URL = true, r.HTMLURL
				return res, nil
			}
		}
		if r.Description == nil || *r.Description != req.Description {
			if err := a.setDescription(ctx, owner, req.Name, req.Description); err != nil {
				return nil, err
			}
			res.DescriptionUpdated = true
		}
		logf("Updating %s/%s", owner, req.Name)
	} else {
		if r, err = a.createRepo(ctx, req.Org, req.Name, req.Description, req.Private); err != nil {
			return nil, err
		}
		res.Created, res.Private = true, r.Private
		logf("Created repository %s/%s", owner, req.Name)
	}
	res.URL = r.HTMLURL
	if res.URL == "" {
		res.URL = "https://github.com/" + owner + "/" + req.Name
	}
	if err := checkCloneURL(r.CloneURL); err != nil {
		return nil, err
	}
	res.CloneURL = r.CloneURL

	if res.TopicAdded, err = a.addTopic(ctx, owner, req.Name, Topic); err != nil {
		return nil, err
	}
	logf("Set the %s topic", Topic)

	pushTimeout := o.PushTimeout
	if pushTimeout <= 0 {
		pushTimeout = DefaultPushTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	git := o.Git
	if git == nil {
		git = ExecGit(nil)
	}
	if err := push(pctx, a, git, req, res); err != nil {
		return nil, err
	}
	if res.UpToDate {
		logf("%s already has %s at %s", res.CloneURL, res.Branch, short(res.Commit))
	} else {
		logf("Pushed %s (%s) to %s", res.Branch, short(res.Commit), registry.RedactURL(res.CloneURL))
	}
	switch {
	case res.TagNote != "":
		logf("Release tag not moved: %s", res.TagNote)
	case res.Tag == "":
	case res.TagSigned:
		logf("Release tag %s is signed", res.Tag)
	default:
		logf("Release tag %s is not signed: git has no signing key set up; %s", res.Tag, SigningHelp)
	}
	return res, nil
}

// checkCloneURL accepts the clone URLs fledge pushes to: https (or http
// to a loopback host), ssh, or file (a test's remote).
func checkCloneURL(raw string) error {
	if raw == "" {
		return errors.New("GitHub did not say where to push (no clone_url)")
	}
	if strings.HasPrefix(raw, "-") {
		return fmt.Errorf("clone URL %q starts with '-'", termsafe.Truncate(raw, 80))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("clone URL %q is not a URL", termsafe.Truncate(registry.RedactURL(raw), 80))
	}
	if u.User != nil && u.Scheme != "ssh" {
		return fmt.Errorf("clone URL %q carries credentials", termsafe.Truncate(registry.RedactURL(raw), 80))
	}
	switch u.Scheme {
	case "https", "ssh", "file":
		return nil
	case "http":
		if registry.IsLoopbackHost(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("clone URL %q: want https://, ssh:// or file://", termsafe.Truncate(registry.RedactURL(raw), 80))
}

func short(c string) string { return c[:min(12, len(c))] }

package publish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/corvidlabs/fledge-go/registry"
)

// ErrDiverged is wrapped when the repository on GitHub has commits the
// directory lacks: fledge does not overwrite them.
var ErrDiverged = errors.New("the repository has commits that the directory does not")

// push commits the directory's changes and pushes its branch to
// res.CloneURL, filling res.Branch, res.Commit, res.Committed and
// res.UpToDate.
func push(ctx context.Context, a *api, run GitRunner, req Request, res *Result) error {
	r, err := openOrInit(req.Dir)
	if err != nil {
		return err
	}
	wt, err := r.Worktree()
	if err != nil {
		return fmt.Errorf("%s: %w", req.Dir, err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return fmt.Errorf("stage the files of %s: %w", req.Dir, err)
	}
	st, err := wt.Status()
	if err != nil {
		return fmt.Errorf("status of %s: %w", req.Dir, err)
	}
	_, headErr := r.Head()
	if !st.IsClean() || errors.Is(headErr, plumbing.ErrReferenceNotFound) {
		msg := req.CommitMessage
		if msg == "" {
			msg = "Publish fledge plugin"
		}
		opts := &git.CommitOptions{Author: req.Author}
		if req.Author != nil {
			c := *req.Author
			opts.Committer = &c
		}
		if _, err := wt.Commit(msg, opts); err != nil {
			if errors.Is(err, git.ErrMissingAuthor) {
				return fmt.Errorf("commit the plugin: git does not know who you are: set user.name and user.email (git config --global user.name \"Your Name\"), or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL")
			}
			return fmt.Errorf("commit the plugin: %w", err)
		}
		res.Committed = true
	}
	head, err := r.Head()
	if err != nil {
		return fmt.Errorf("%s: %w", req.Dir, err)
	}
	if !head.Name().IsBranch() {
		return fmt.Errorf("%s is not on a branch (a detached HEAD): check out the branch to publish", req.Dir)
	}
	res.Branch, res.Commit = head.Name().Short(), head.Hash().String()
	specs := []config.RefSpec{config.RefSpec(head.Name().String() + ":" + head.Name().String())}
	if req.Tag != "" {
		msg := req.Name + " " + req.Tag
		res.TagSigned, res.TagExisted, err = releaseTag(ctx, run, r, req.Dir, req.Tag, msg, head.Hash())
		switch {
		case errors.Is(err, errTagElsewhere):
			res.TagNote = err.Error() + ": it stays there; raise the version in plugin.toml to tag this commit"
		case err != nil:
			return err
		default:
			res.Tag = req.Tag
			t := plumbing.NewTagReferenceName(req.Tag).String()
			specs = append(specs, config.RefSpec(t+":"+t))
		}
	}

	if err := ensureOrigin(r, res.CloneURL); err != nil {
		return err
	}
	var auth transport.AuthMethod
	if tok := (registry.GitHubAuth{Token: a.token, API: a.base}).For(res.CloneURL); tok != "" {
		auth = &githttp.BasicAuth{Username: "x-access-token", Password: string(tok)}
	}
	// An anonymous remote pushes to the clone URL whatever origin says,
	// and keeps no URL (and no token) in the repository's config.
	remote := git.NewRemote(r.Storer, &config.RemoteConfig{Name: "origin", URLs: []string{res.CloneURL}})
	err = remote.PushContext(ctx, &git.PushOptions{RemoteName: "origin", RefSpecs: specs, Auth: auth})
	switch {
	case errors.Is(err, git.NoErrAlreadyUpToDate):
		res.UpToDate = true
		return nil
	case errors.Is(err, git.ErrNonFastForwardUpdate) || isNonFastForward(err):
		return fmt.Errorf("push %s to %s: %w: pull them first (git pull %s %s), then publish again",
			res.Branch, registry.RedactURL(res.CloneURL), ErrDiverged, registry.RedactURL(res.CloneURL), res.Branch)
	case err != nil:
		return fmt.Errorf("push %s to %s: %w", res.Branch, registry.RedactURL(res.CloneURL), err)
	}
	return nil
}

// isNonFastForward recognises go-git's push refusal, which it returns as
// plain text ("non-fast-forward update: refs/heads/main") rather than
// wrapping ErrNonFastForwardUpdate.
func isNonFastForward(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), git.ErrNonFastForwardUpdate.Error()+":")
}

// openOrInit opens the git work tree at dir, or makes dir one on branch
// main (as the Rust fledge does) when it has no .git of its own. A
// directory inside another repository gets its own.
func openOrInit(dir string) (*git.Repository, error) {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		r, err := git.PlainOpen(dir)
		if err != nil {
			return nil, fmt.Errorf("open the git repository at %s: %w", dir, err)
		}
		return r, nil
	}
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return nil, fmt.Errorf("make %s a git repository: %w", dir, err)
	}
	return r, nil
}

// ensureOrigin records cloneURL as origin when the repository has no
// origin, so the user can go on with git; an origin of their own is left
// as it is.
func ensureOrigin(r *git.Repository, cloneURL string) error {
	if _, err := r.Remote("origin"); err == nil {
		return nil
	} else if !errors.Is(err, git.ErrRemoteNotFound) {
		return err
	}
	_, err := r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{cloneURL}})
	return err
}

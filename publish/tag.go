package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/internal/semver"
)

// GitRunner runs the git binary in dir and returns what it printed on
// stdout; an error carries what it printed on stderr.
type GitRunner func(ctx context.Context, dir string, args ...string) ([]byte, error)

// ExecGit is the GitRunner that runs git from PATH with env (nil: this
// process's environment).
func ExecGit(env []string) GitRunner {
	return func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		cmd.Env = env
		if env == nil {
			cmd.Env = os.Environ()
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			if msg := strings.TrimSpace(errb.String()); msg != "" {
				return nil, fmt.Errorf("git %s: %s", args[0], msg)
			}
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return out.Bytes(), nil
	}
}

// SigningHelp says how to make git sign tags with a key people already
// have, for authors whose git signs nothing.
const SigningHelp = "to sign releases with your SSH key: git config --global gpg.format ssh && git config --global user.signingkey ~/.ssh/id_ed25519.pub (or, with GnuPG, git config --global user.signingkey KEYID); fledge users then see who signed what they install"

// signingConfigured reports whether git in dir would sign a tag made
// with -s: a signing key is configured, or tag.gpgSign asks for it.
func signingConfigured(ctx context.Context, run GitRunner, dir string) bool {
	for _, key := range []string{"user.signingkey", "tag.gpgSign"} {
		out, err := run(ctx, dir, "config", "--get", key)
		if v := strings.TrimSpace(string(out)); err == nil && v != "" && v != "false" {
			return true
		}
	}
	return false
}

// errTagElsewhere is returned by releaseTag for a tag that names another
// commit: publish goes on without tagging, and says so.
var errTagElsewhere = errors.New("the tag names an earlier commit")

// TagError reports a release tag git could not make (or sign).
type TagError struct {
	Tag string
	Err error
}

func (e *TagError) Error() string { return e.Err.Error() }
func (e *TagError) Unwrap() error { return e.Err }

// releaseTag makes tag at head in the repository at dir: signed with
// the author's git signing configuration when there is one (git tag -s,
// which follows gpg.format, user.signingkey and gpg.program), annotated
// and unsigned otherwise. A tag already at head is kept as it is; one
// at another commit is errTagElsewhere.
func releaseTag(ctx context.Context, run GitRunner, r *git.Repository, dir, tag, msg string, head plumbing.Hash) (signed, existed bool, err error) {
	if ref, err := r.Tag(tag); err == nil {
		commit := ref.Hash()
		var sig string
		if to, err := r.TagObject(ref.Hash()); err == nil {
			sig = to.PGPSignature
			if c, err := to.Commit(); err == nil {
				commit = c.Hash
			}
		}
		if commit != head {
			return false, true, fmt.Errorf("%w: %s names %s, not the commit published (%s)", errTagElsewhere, tag, short(commit.String()), short(head.String()))
		}
		return sig != "", true, nil
	} else if !errors.Is(err, git.ErrTagNotFound) {
		return false, false, err
	}
	signed = signingConfigured(ctx, run, dir)
	mode := "-a"
	if signed {
		mode = "-s"
	}
	if _, err := run(ctx, dir, "tag", mode, "-m", msg, tag, head.String()); err != nil {
		if signed {
			return false, false, &TagError{Tag: tag, Err: fmt.Errorf("sign the release tag %s: %w (git tag -s must work in %s; or unset user.signingkey to publish an unsigned tag)", tag, err, dir)}
		}
		return false, false, &TagError{Tag: tag, Err: fmt.Errorf("tag the release %s: %w", tag, err)}
	}
	return signed, false, nil
}

// LatestTag finds the highest semver tag of the repository at dir and
// whether it is signed (an annotated tag carrying a signature). tag is
// "" when the repository has no semver tag (or dir is no repository).
func LatestTag(dir string) (tag string, signed bool, err error) {
	r, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	iter, err := r.Tags()
	if err != nil {
		return "", false, err
	}
	var best *semver.Version
	var bestRef *plumbing.Reference
	_ = iter.ForEach(func(ref *plumbing.Reference) error {
		v, err := semver.NewVersion(ref.Name().Short())
		if err == nil && (best == nil || v.GreaterThan(best)) {
			best, bestRef = v, ref
		}
		return nil
	})
	if bestRef == nil {
		return "", false, nil
	}
	if to, err := r.TagObject(bestRef.Hash()); err == nil {
		return bestRef.Name().Short(), to.PGPSignature != "", nil
	}
	return bestRef.Name().Short(), false, nil
}

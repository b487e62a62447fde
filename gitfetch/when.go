package gitfetch

import (
	"fmt"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Made says when a revision checked out into dir (before RemoveGitDir)
// was made: for an annotated tag, its tagger date; otherwise (a lightweight
// tag, a branch, a commit) the committer date of commit. Both are written
// by whoever made them, so a backdated tag reads as old.
func Made(dir string, rev Revision, commit string) (time.Time, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return time.Time{}, err
	}
	if rev.RefName.IsTag() && rev.Object != "" && rev.Object != commit {
		if tag, err := repo.TagObject(plumbing.NewHash(rev.Object)); err == nil {
			return tag.Tagger.When, nil
		}
	}
	c, err := repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return time.Time{}, fmt.Errorf("commit %s: %w", commit, err)
	}
	return c.Committer.When, nil
}

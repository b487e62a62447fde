package gitfetch

import (
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Signed reads, from a revision checked out into dir (before
// RemoveGitDir), the objects whose signatures say who made it: the
// annotated tag rev names (nil for a lightweight tag, a branch or a
// commit) and the commit. Both are the fetch's own objects, which the
// checkout verified to be the revision asked for.
func Signed(dir string, rev Revision, commit string) (*object.Tag, *object.Commit, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, nil, err
	}
	c, err := repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, nil, fmt.Errorf("commit %s: %w", commit, err)
	}
	if !rev.RefName.IsTag() || rev.Object == "" || rev.Object == commit {
		return nil, c, nil
	}
	tag, err := repo.TagObject(plumbing.NewHash(rev.Object))
	if err != nil {
		return nil, nil, fmt.Errorf("tag %s (%s): %w", rev.RefName.Short(), rev.Object, err)
	}
	return tag, c, nil
}

// Raw reads the objects hashes name from a revision checked out into dir
// (before RemoveGitDir), as stored: their bytes are exactly what their
// ids hash, for carrying a signature's evidence away from the repository.
// They must be read before dir's .git goes.
func Raw(dir string, hashes ...plumbing.Hash) ([]plumbing.EncodedObject, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, err
	}
	out := make([]plumbing.EncodedObject, 0, len(hashes))
	for _, h := range hashes {
		o, err := repo.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", h, err)
		}
		out = append(out, o)
	}
	return out, nil
}

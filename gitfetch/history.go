package gitfetch

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// CheckoutFrom is Checkout for following a branch from a commit installed
// earlier (since): it fetches the branch's whole history, because a shallow
// fetch cannot tell a fast-forward from a rewrite (a local source's is read
// where it is), checks rev out, and
// reports whether since is the commit checked out or one of its ancestors.
// When it is not, the branch was force-pushed: rewritten, or moved back.
func CheckoutFrom(ctx context.Context, url string, rev Revision, dir string, o Options, since string) (commit string, descends bool, err error) {
	h, history, err := checkout(ctx, url, rev, dir, o, 0)
	if err != nil {
		return "", false, err
	}
	descends, err = isAncestor(ctx, history, plumbing.NewHash(since), h)
	if err != nil {
		return "", false, incomplete(url, fmt.Errorf("history of %s: %w", url, err))
	}
	return h.String(), descends, nil
}

var errFound = errors.New("found")

// isAncestor reports whether old is head or reachable from it.
func isAncestor(ctx context.Context, s storer.EncodedObjectStorer, old, head plumbing.Hash) (bool, error) {
	if old == head {
		return true, nil
	}
	c, err := object.GetCommit(s, head)
	if err != nil {
		return false, err
	}
	n := 0
	err = object.NewCommitPreorderIter(c, nil, nil).ForEach(func(c *object.Commit) error {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if c.Hash == old {
			return errFound
		}
		return nil
	})
	switch {
	case errors.Is(err, errFound):
		return true, nil
	case err != nil:
		return false, err
	}
	return false, nil
}

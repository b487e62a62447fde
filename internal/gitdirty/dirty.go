package gitdirty

import (
	"github.com/go-git/go-git/v5"
)

// Dirty reports whether `git status --porcelain` would print anything for
// r's worktree: staged or unstaged changes, or untracked files that no
// ignore rule covers. A bare repository is never dirty.
func Dirty(r *git.Repository) (bool, error) {
	wt, err := r.Worktree()
	if err != nil {
		if err == git.ErrIsBareRepository {
			return false, nil
		}
		return false, err
	}
	st, err := wt.Status()
	if err != nil {
		return false, err
	}
	return !st.IsClean(), nil
}

package gitstate

import (
	"bytes"
	"context"

	"github.com/corvidlabs/fledge-go/internal/redact"
)

// State is what the init message's project.git says: the branch (HEAD
// when detached), whether `git status --porcelain` prints anything, and
// the primary remote: origin when there is one, else the first by name;
// with none, "origin" and an empty URL, as the Rust fledge sends them.
type State struct {
	Branch    string
	Dirty     bool
	Remote    string
	RemoteURL string // without credentials
	Root      string // the work tree's top level
	// Warning says why git could not answer; Dirty is then true, and the
	// other fields are what could be known.
	Warning string
}

// State asks git for the repository's state now. The first call after
// an Open that took the one-process path (see fast.go) answers with the
// status that Open asked for: git is asked once per run.
func (r *Repo) State(ctx context.Context) State {
	r.mu.Lock()
	first := r.first
	r.first = nil
	r.mu.Unlock()
	if first != nil {
		return *first
	}
	if r.failure != nil {
		return State{Remote: "origin", Root: r.Root, Dirty: true, Warning: r.closedWarning(r.failure)}
	}
	st, err := r.status(ctx)
	if err != nil {
		st.Dirty = true
		st.Warning = r.closedWarning(err)
	}
	return st
}

// status is git's answer: the branch and dirtiness from one `git status
// --porcelain=v2 --branch`, the remote from the config read at Open.
func (r *Repo) status(ctx context.Context) (State, error) {
	st := State{Remote: "origin", Root: r.Root}
	if rem := r.primaryRemote(); rem != nil {
		// As `git remote get-url` gives it: insteadOf applied.
		st.Remote, st.RemoteURL = rem.name, redact.URL(r.rewrite(rem.url))
	}
	// One entry is enough to know the worktree is dirty: git is stopped
	// there. The headers come first (branch.oid, branch.head, ...).
	out, cut, err := r.g.run(ctx, 64<<10, hasEntry, nil, "status", "--porcelain=v2", "-z", "--branch")
	if err != nil {
		return st, err
	}
	st.Dirty = cut || hasEntry(out) // cut: an entry, or more output than any header
	for _, rec := range bytes.Split(out, []byte{0}) {
		if head, ok := bytes.CutPrefix(rec, []byte("# branch.head ")); ok {
			st.Branch = string(head)
			if st.Branch == "(detached)" {
				st.Branch = "HEAD" // as `git rev-parse --abbrev-ref HEAD` says
			}
		}
	}
	return st, nil
}

// hasEntry reports whether porcelain v2 output (NUL-separated) holds a
// complete entry, not only headers.
func hasEntry(out []byte) bool {
	for len(out) > 0 {
		rec, rest, found := bytes.Cut(out, []byte{0})
		if !found {
			return false // cut short: wait for the rest
		}
		if len(rec) > 0 && rec[0] != '#' {
			return true
		}
		out = rest
	}
	return false
}

// primaryRemote is origin if the repository has it, else the first by
// name, or nil.
func (r *Repo) primaryRemote() *remote {
	var first *remote
	for i := range r.remotes {
		rem := &r.remotes[i]
		if rem.name == "origin" {
			return rem
		}
		if first == nil || rem.name < first.name {
			first = rem
		}
	}
	return first
}

// closedWarning is the warning shown when an answer fails closed.
func (r *Repo) closedWarning(err error) string {
	return "the git state of " + r.Root + " could not be read, so plugins are told it is dirty: " + err.Error()
}

package runner

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/internal/gitdirty"
	"github.com/corvidlabs/fledge-go/runner/protocol"
)

// Bounds on what git metadata returns.
const (
	maxTags      = 100
	maxLog       = 20
	maxStatus    = 1000
	maxSubjectSz = 200
)

// openRepo opens the git repository holding dir (dir or an ancestor), or
// returns nil. git itself is never run, and a file in .git that is not a
// regular file (a named pipe where HEAD should be) is refused, not waited
// on.
func openRepo(dir string) *git.Repository {
	r, err := gitfetch.OpenLocal(dir)
	if err != nil {
		return nil
	}
	return r
}

// gitState is the init message's project.git: branch, dirtiness and the
// primary remote with credentials stripped from its URL. Without a remote
// it is "origin" with an empty URL, as the Rust fledge reports it.
func gitState(r *git.Repository) *protocol.Git {
	g := &protocol.Git{Branch: branchName(r), Remote: "origin"}
	// Asked on every run, in whatever project the caller stands in: the
	// fast check, not go-git's full status (see internal/gitdirty). A
	// worktree it cannot read counts as dirty: a plugin that checks before
	// it acts must not be told "clean" unverified.
	dirty, err := gitdirty.Dirty(r)
	g.Dirty = dirty || err != nil
	if rem := primaryRemote(r); rem != nil {
		g.Remote = rem.Config().Name
		if urls := rem.Config().URLs; len(urls) > 0 {
			g.RemoteURL = StripCredentials(urls[0])
		}
	}
	return g
}

func branchName(r *git.Repository) string {
	ref, err := r.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return ""
	}
	if ref.Type() == plumbing.SymbolicReference {
		return ref.Target().Short()
	}
	return "HEAD" // detached, as `git rev-parse --abbrev-ref HEAD` says
}

func primaryRemote(r *git.Repository) *git.Remote {
	if rem, err := r.Remote("origin"); err == nil {
		return rem
	}
	rems, err := r.Remotes()
	if err != nil || len(rems) == 0 {
		return nil
	}
	sort.Slice(rems, func(i, j int) bool { return rems[i].Config().Name < rems[j].Config().Name })
	return rems[0]
}

func worktreeStatus(r *git.Repository) (git.Status, error) {
	wt, err := r.Worktree()
	if err != nil {
		return nil, err
	}
	return wt.Status()
}

// StripCredentials removes user info (for http and https, where it holds
// tokens) or the password (for other schemes), plus any query and fragment
// of http URLs, from a remote URL. scp-like addresses (git@host:path) carry
// no password and are returned as they are.
func StripCredentials(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		if i := strings.Index(raw, "://"); i >= 0 {
			// Unparseable URL: drop everything up to the last '@' of the
			// authority rather than risk leaking it.
			rest := raw[i+3:]
			auth := rest
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				auth = rest[:j]
			}
			if k := strings.LastIndexByte(auth, '@'); k >= 0 {
				return raw[:i+3] + rest[k+1:]
			}
		}
		return raw
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		u.User = nil
		u.RawQuery = ""
		u.Fragment = ""
	default:
		if u.User != nil {
			u.User = url.User(u.User.Username())
		}
	}
	return u.String()
}

// gitTags lists tags, highest version first (as git tag --sort=-v:refname).
func gitTags(r *git.Repository) []string {
	iter, err := r.Tags()
	if err != nil {
		return []string{}
	}
	var tags []string
	_ = iter.ForEach(func(ref *plumbing.Reference) error {
		tags = append(tags, ref.Name().Short())
		return nil
	})
	sort.SliceStable(tags, func(i, j int) bool { return versionLess(tags[j], tags[i]) })
	if len(tags) > maxTags {
		tags = tags[:maxTags]
	}
	if tags == nil {
		tags = []string{}
	}
	return tags
}

// gitStatusLines lists changed files as `git status --porcelain` does
// ("XY path"), sorted by path.
func gitStatusLines(r *git.Repository) []string {
	st, err := worktreeStatus(r)
	if err != nil {
		return []string{}
	}
	paths := make([]string, 0, len(st))
	for p := range st {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := []string{}
	for _, p := range paths {
		fs := st[p]
		if fs.Staging == git.Unmodified && fs.Worktree == git.Unmodified {
			continue
		}
		if len(out) == maxStatus {
			break
		}
		x, y := byte(fs.Staging), byte(fs.Worktree)
		if x == byte(git.Unmodified) {
			x = ' '
		}
		if y == byte(git.Unmodified) {
			y = ' '
		}
		out = append(out, fmt.Sprintf("%c%c %s", x, y, p))
	}
	return out
}

// gitLog lists the last commits as `git log --oneline` does.
func gitLog(r *git.Repository) []string {
	head, err := r.Head()
	if err != nil {
		return []string{}
	}
	iter, err := r.Log(&git.LogOptions{From: head.Hash()})
	if err != nil {
		return []string{}
	}
	defer iter.Close()
	out := []string{}
	errStop := errors.New("stop")
	_ = iter.ForEach(func(c *object.Commit) error {
		if len(out) == maxLog {
			return errStop
		}
		subject, _, _ := strings.Cut(c.Message, "\n")
		if len(subject) > maxSubjectSz {
			subject = subject[:maxSubjectSz]
		}
		out = append(out, c.Hash.String()[:7]+" "+subject)
		return nil
	})
	return out
}

// versionLess orders strings as git's version sort does: runs of digits
// compare as numbers.
func versionLess(a, b string) bool {
	for a != "" && b != "" {
		ai, bi := chunk(a), chunk(b)
		ca, cb := a[:ai], b[:bi]
		if ca != cb {
			da, db := isDigits(ca), isDigits(cb)
			switch {
			case da && db:
				na, nb := strings.TrimLeft(ca, "0"), strings.TrimLeft(cb, "0")
				if len(na) != len(nb) {
					return len(na) < len(nb)
				}
				if na != nb {
					return na < nb
				}
			default:
				return ca < cb
			}
		}
		a, b = a[ai:], b[bi:]
	}
	return len(a) < len(b)
}

func chunk(s string) int {
	digit := unicode.IsDigit(rune(s[0]))
	i := 1
	for i < len(s) && unicode.IsDigit(rune(s[i])) == digit {
		i++
	}
	return i
}

func isDigits(s string) bool { return s != "" && unicode.IsDigit(rune(s[0])) }

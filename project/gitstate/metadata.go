package gitstate

import (
	"bytes"
	"context"
	"strings"
)

// Bounds on the metadata answers, as the Rust fledge bounds them (100
// tags, 20 commits) or beyond anything a plugin reads (status lines).
const (
	maxTags     = 100
	maxLog      = 20
	maxStatus   = 1000
	maxListRead = 4 << 20
)

// Status is `git status --porcelain`, line by line (at most 1,000 lines):
// the metadata key git_status. The same command, run at the same moment,
// decides State's Dirty, so the two never disagree.
func (r *Repo) Status(ctx context.Context) ([]string, error) {
	return r.lines(ctx, maxStatus, "status", "--porcelain")
}

// Tags is `git tag --sort=-v:refname`, at most 100: the metadata key
// git_tags.
func (r *Repo) Tags(ctx context.Context) ([]string, error) {
	return r.lines(ctx, maxTags, "tag", "--sort=-v:refname", "--no-column")
}

// Log is `git log --oneline -20`, without decorations, notes or
// signatures whatever the user's config asks for: the metadata key
// git_log. A branch without commits has an empty log.
func (r *Repo) Log(ctx context.Context) ([]string, error) {
	lines, err := r.lines(ctx, maxLog, "log", "--oneline", "--no-decorate", "--no-notes", "--no-show-signature", "--no-color", "-n", "20")
	if ge, ok := err.(*Error); ok && ge.Code == 128 && strings.Contains(ge.Message, "does not have any commits yet") {
		return []string{}, nil
	}
	return lines, err
}

// lines runs git and splits its output into at most max lines.
func (r *Repo) lines(ctx context.Context, max int, args ...string) ([]string, error) {
	if r.failure != nil {
		return nil, r.failure
	}
	n := 0
	stop := func(out []byte) bool { n = bytes.Count(out, []byte{'\n'}); return n >= max }
	out, _, err := r.g.run(ctx, maxListRead, stop, nil, args...)
	if err != nil {
		return nil, err
	}
	lines := []string{}
	for _, l := range strings.Split(string(out), "\n") {
		if len(lines) == max {
			break
		}
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

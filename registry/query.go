package registry

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// Query is what a search asks for. Every field narrows the result; the
// zero Query matches every plugin.
type Query struct {
	// Text holds words that must all occur in a plugin's name, slug,
	// description or topics (case-insensitively).
	Text string
	// Author is the repository owner a plugin must belong to (a GitHub
	// user or organisation, compared case-insensitively).
	Author string
	// Topic is a topic a plugin must carry, besides fledge-plugin.
	Topic string
}

// Bounds on a query's author and topic: GitHub's own limits.
const (
	maxAuthorLen = 39
	maxTopicLen  = 50
)

// Check reports what is wrong with q, or nil. Author and topic reach
// GitHub's search syntax, so only the characters GitHub allows in owner
// names and topics pass: nothing can smuggle in another qualifier.
func (q Query) Check() error {
	if err := checkQuery(q.Text); err != nil {
		return err
	}
	if q.Author != "" && !validAuthor(q.Author) {
		return fmt.Errorf("author %q: want a GitHub user or organisation name (letters, digits and single hyphens, at most %d)", termsafe.Truncate(q.Author, 60), maxAuthorLen)
	}
	if q.Topic != "" && !validTopic(q.Topic) {
		return fmt.Errorf("topic %q: want a GitHub topic (lower-case letters, digits and hyphens, at most %d)", termsafe.Truncate(q.Topic, 60), maxTopicLen)
	}
	return nil
}

func validAuthor(s string) bool {
	if len(s) > maxAuthorLen || strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if !(r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return false
		}
	}
	return s != ""
}

func validTopic(s string) bool {
	if len(s) > maxTopicLen || strings.HasPrefix(s, "-") {
		return false
	}
	for _, r := range s {
		if !(r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return false
		}
	}
	return s != ""
}

// match reports whether e satisfies the author and topic of q (the text is
// matched by searchIn, or by GitHub).
func (q Query) match(e Entry) bool {
	if q.Author != "" {
		owner, _ := RepoOwnerName(e.Repo)
		if !strings.EqualFold(owner, q.Author) {
			return false
		}
	}
	if q.Topic != "" {
		found := false
		for _, t := range e.Topics {
			if strings.EqualFold(t, q.Topic) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// filter keeps the entries matching q's author and topic.
func (q Query) filter(entries []Entry) []Entry {
	if q.Author == "" && q.Topic == "" {
		return entries
	}
	out := entries[:0:0]
	for _, e := range entries {
		if q.match(e) {
			out = append(out, e)
		}
	}
	return out
}

// Narrow keeps the entries whose trust tier (as trust.Config.Of computes
// it from the repository, never as the index claims) is tier, when tier is set, and
// then at most limit of them, when limit is positive. A result cut short
// is marked Incomplete.
func (r *Result) Narrow(tier Tier, t TrustConfig, limit int) {
	if tier != "" {
		out := r.Entries[:0:0]
		for _, e := range r.Entries {
			if t.Of(e.Repo) == tier {
				out = append(out, e)
			}
		}
		r.Entries = out
	}
	if limit > 0 && len(r.Entries) > limit {
		r.Entries = r.Entries[:limit]
		r.Incomplete = true
	}
}

// RepoOwnerName splits a repository URL (https://host/owner/name[.git],
// ssh://…, git@host:owner/name, file:///…/owner/name) into the owner and
// repository name: its last two path segments, without a .git suffix.
// Either is "" when the URL has no such segment.
func RepoOwnerName(repo string) (owner, name string) {
	var path string
	if m := scpRe.FindStringSubmatch(repo); m != nil && !strings.Contains(repo, "://") {
		path = m[3]
	} else if u, err := url.Parse(repo); err == nil {
		path = u.Path
	} else {
		return "", ""
	}
	segs := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	if len(segs) == 0 {
		return "", ""
	}
	name = strings.TrimSuffix(segs[len(segs)-1], ".git")
	if len(segs) > 1 {
		owner = segs[len(segs)-2]
	}
	if !utf8.ValidString(owner) || !utf8.ValidString(name) {
		return "", ""
	}
	return owner, name
}

// WebURL is the address of a repository for people: an http(s) repository
// URL without its .git suffix (as GitHub's html_url), any other URL as it
// is.
func WebURL(repo string) string {
	lower := strings.ToLower(repo)
	if strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "http://") {
		return strings.TrimSuffix(strings.TrimRight(repo, "/"), ".git")
	}
	return repo
}

package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Topic is the GitHub topic that marks a repository as a fledge plugin.
const Topic = "fledge-plugin"

// GitHubClient searches GitHub repositories carrying the fledge-plugin
// topic. It is the backend when no index is configured.
type GitHubClient struct {
	api   string
	token Token
	fetch fetch
	now   func() time.Time
}

// NewGitHubClient returns a client for the REST API at o.GitHubAPI. The
// token is only ever sent over https or to a loopback host.
func NewGitHubClient(o Options) (*GitHubClient, error) {
	o = o.withDefaults()
	api := strings.TrimRight(o.GitHubAPI, "/")
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("GitHub API base %q: want an http(s) URL such as %s", RedactURL(api), DefaultGitHubAPI)
	}
	if u.User != nil {
		return nil, fmt.Errorf("GitHub API base %q must not carry credentials; set %s", RedactURL(api), TokenEnvText)
	}
	token := GitHubAuth{Token: o.Token, API: api}.For(api)
	return &GitHubClient{
		api:   api,
		token: token,
		fetch: fetch{client: o.HTTPClient, timeout: o.Timeout, userAgent: o.UserAgent},
		now:   o.Now,
	}, nil
}

// Search implements Index: GET {api}/search/repositories?q=topic:fledge-plugin
// [topic:T] [user:A] <text>. The author and topic are checked again on
// what GitHub answers.
func (g *GitHubClient) Search(ctx context.Context, q Query) (*Result, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	gq := "topic:" + Topic
	if q.Topic != "" {
		gq += " topic:" + q.Topic
	}
	if q.Author != "" {
		gq += " user:" + q.Author
	}
	text := strings.TrimSpace(q.Text)
	if text != "" {
		gq += " " + text
	}
	res, err := g.search(ctx, gq)
	if err != nil {
		return nil, err
	}
	res.Entries = q.filter(res.Entries)
	sortEntries(res.Entries, text)
	return res, nil
}

// Lookup implements Index: it searches repository names for name and keeps
// the repositories that answer to it (see IsCandidate).
func (g *GitHubClient) Lookup(ctx context.Context, name string) (*Result, error) {
	name = strings.TrimSpace(name)
	source := g.api + "/search/repositories"
	if !plausibleName(name) {
		return &Result{Entries: []Entry{}, Source: source}, nil
	}
	res, err := g.search(ctx, "topic:"+Topic+" "+name+" in:name")
	if err != nil {
		return nil, err
	}
	res.Entries = lookupIn(res.Entries, name)
	return res, nil
}

// plausibleName reports whether name could be a repository name, so a
// hostile one never reaches the query as search syntax.
func plausibleName(name string) bool {
	if name == "" || len(name) > 100 {
		return false
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return false
		}
	}
	return true
}

type ghSearchResponse struct {
	TotalCount        int      `json:"total_count"`
	IncompleteResults bool     `json:"incomplete_results"`
	Items             []ghRepo `json:"items"`
}

type ghRepo struct {
	Name          string   `json:"name"`
	FullName      string   `json:"full_name"`
	Description   *string  `json:"description"`
	HTMLURL       string   `json:"html_url"`
	Stars         int      `json:"stargazers_count"`
	Language      *string  `json:"language"`
	Topics        []string `json:"topics"`
	UpdatedAt     string   `json:"updated_at"`
	PushedAt      string   `json:"pushed_at"`
	DefaultBranch string   `json:"default_branch"`
}

const ghPerPage = 100

func (g *GitHubClient) search(ctx context.Context, q string) (*Result, error) {
	source := g.api + "/search/repositories"
	params := url.Values{"q": {q}, "per_page": {strconv.Itoa(ghPerPage)}}
	header := http.Header{
		"Accept":               {"application/vnd.github+json"},
		"X-Github-Api-Version": {"2022-11-28"},
	}
	if g.token != "" {
		header.Set("Authorization", "Bearer "+string(g.token))
	}
	resp, body, err := g.fetch.get(ctx, source+"?"+params.Encode(), header)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnavailable, source, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, g.statusError(source, resp, body))
	}
	var sr ghSearchResponse
	if err := json.Unmarshal(body, &sr); err != nil {
		return nil, &IndexError{Source: source, Problem: describeJSONError(err)}
	}
	if len(sr.Items) > MaxEntries {
		return nil, &IndexError{Source: source, Problem: fmt.Sprintf("%d items, more than the %d allowed", len(sr.Items), MaxEntries)}
	}
	entries := make([]Entry, 0, len(sr.Items))
	for i, it := range sr.Items {
		e := it.entry()
		if problem := checkEntry(&e); problem != "" {
			return nil, &IndexError{Source: source, Entry: i + 1, Name: displayName(e.Name), Problem: problem}
		}
		entries = append(entries, e)
	}
	return &Result{
		Entries:    entries,
		Source:     source,
		Incomplete: sr.IncompleteResults || sr.TotalCount > len(sr.Items),
	}, nil
}

// entry maps a repository to an Entry. GitHub knows no version, and its
// repositories claim no trust tier or install command.
func (r ghRepo) entry() Entry {
	e := Entry{
		Name:          r.Name,
		Slug:          strings.TrimPrefix(r.Name, namePrefix),
		Repo:          r.HTMLURL,
		Topics:        r.Topics,
		Stars:         r.Stars,
		DefaultBranch: r.DefaultBranch,
	}
	if e.Slug == "" {
		e.Slug = r.Name
	}
	if r.Description != nil {
		e.Description = *r.Description
	}
	if r.Language != nil {
		e.Language = strings.ToLower(*r.Language)
	}
	for _, s := range []string{r.PushedAt, r.UpdatedAt} {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			e.UpdatedAt = t.UTC()
			break
		}
	}
	return e
}

// RateLimitError is GitHub refusing because the rate limit is spent.
type RateLimitError struct {
	// Reset is when the limit resets (zero if GitHub did not say).
	Reset time.Time
	// Authenticated says whether a token was sent: without one the limit
	// is much lower, and setting a token (TokenEnv) helps.
	Authenticated bool
}

func (e *RateLimitError) Error() string {
	msg := "GitHub API rate limit exceeded"
	if !e.Reset.IsZero() {
		msg += " (resets at " + e.Reset.UTC().Format(time.RFC3339) + ")"
	}
	if !e.Authenticated {
		msg += "; unauthenticated requests have a low limit"
	}
	return msg
}

func (g *GitHubClient) statusError(source string, resp *http.Response, body []byte) error {
	limited := resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusForbidden && (resp.Header.Get("X-Ratelimit-Remaining") == "0" || resp.Header.Get("Retry-After") != ""))
	if limited {
		rl := &RateLimitError{Authenticated: g.token != ""}
		if n, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil && n > 0 {
			rl.Reset = time.Unix(n, 0).UTC()
		} else if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			rl.Reset = g.now().Add(time.Duration(s) * time.Second).UTC()
		}
		return rl
	}
	se := NewStatusError(source, resp.StatusCode, body)
	if resp.StatusCode == http.StatusUnauthorized && g.token != "" {
		se.Message = strings.TrimSpace(se.Message + " (the token in " + TokenEnvText + " was rejected)")
	}
	return se
}

// IsRateLimited reports whether err is GitHub's rate limit.
func IsRateLimited(err error) bool {
	var rl *RateLimitError
	return errors.As(err, &rl)
}

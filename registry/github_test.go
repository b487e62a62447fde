package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const secretToken = "ghp_TESTSECRET0123456789"

// fakeGitHub answers /search/repositories from a fixed list of repositories,
// filtering by the words of q (like GitHub does, loosely).
type fakeGitHub struct {
	mu       sync.Mutex
	repos    []map[string]any
	requests []*http.Request
	respond  func(w http.ResponseWriter, r *http.Request) bool // optional override
	total    int                                               // 0 = len(items)
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(context.Background()))
	respond, repos, total := f.respond, f.repos, f.total
	f.mu.Unlock()
	if respond != nil && respond(w, r) {
		return
	}
	if r.URL.Path != "/api/v3/search/repositories" {
		http.NotFound(w, r)
		return
	}
	words := strings.Fields(r.URL.Query().Get("q"))
	items := []map[string]any{}
	for _, repo := range repos {
		ok := true
		for _, w := range words {
			if strings.HasPrefix(w, "topic:") || strings.HasPrefix(w, "in:") || strings.HasPrefix(w, "user:") {
				continue
			}
			if !strings.Contains(strings.ToLower(fmt.Sprint(repo["name"], repo["description"])), strings.ToLower(w)) {
				ok = false
			}
		}
		if ok {
			items = append(items, repo)
		}
	}
	if total == 0 {
		total = len(items)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"total_count": total, "incomplete_results": false, "items": items})
}

func (f *fakeGitHub) last(t *testing.T) *http.Request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("no request reached the fake GitHub")
	}
	return f.requests[len(f.requests)-1]
}

func ghRepoJSON(owner, name, desc string, stars int) map[string]any {
	return map[string]any{
		"name": name, "full_name": owner + "/" + name, "description": desc,
		"html_url":         "https://github.com/" + owner + "/" + name,
		"stargazers_count": stars, "language": "Rust", "topics": []string{"fledge-plugin"},
		"updated_at": "2026-05-01T10:00:00Z", "pushed_at": "2026-05-02T10:00:00Z", "default_branch": "main",
		"owner": map[string]any{"login": owner},
	}
}

func newFakeGitHub(t *testing.T) (*fakeGitHub, *httptest.Server) {
	t.Helper()
	f := &fakeGitHub{repos: []map[string]any{
		ghRepoJSON("CorvidLabs", "fledge-plugin-deps", "Dependency audit", 5),
		ghRepoJSON("alice", "fledge-plugin-deps", "Another deps", 1),
		ghRepoJSON("bob", "deps-tools", "Tools about deps", 50),
		ghRepoJSON("carol", "fledge-plugin-weather", "Weather report", 3),
	}}
	f.repos[3]["description"] = nil
	f.repos[3]["language"] = nil
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func newTestGitHubClient(t *testing.T, srv *httptest.Server, token Token) *GitHubClient {
	t.Helper()
	g, err := NewGitHubClient(Options{GitHubAPI: srv.URL + "/api/v3/", Token: token, HTTPClient: srv.Client(), UserAgent: "fledge/test"})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGitHubSearch(t *testing.T) {
	t.Parallel()
	f, srv := newFakeGitHub(t)
	g := newTestGitHubClient(t, srv, secretToken)
	res, err := g.Search(context.Background(), Query{Text: "deps"})
	if err != nil {
		t.Fatal(err)
	}
	req := f.last(t)
	if got := req.URL.Query().Get("q"); got != "topic:fledge-plugin deps" {
		t.Errorf("q = %q", got)
	}
	if got := req.URL.Query().Get("per_page"); got != "100" {
		t.Errorf("per_page = %q", got)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer "+secretToken {
		t.Errorf("Authorization = %q", got)
	}
	if got := req.Header.Get("Accept"); got != "application/vnd.github+json" {
		t.Errorf("Accept = %q", got)
	}
	if res.Source != srv.URL+"/api/v3/search/repositories" {
		t.Errorf("source = %q", res.Source)
	}
	var got []string
	for _, e := range res.Entries {
		got = append(got, e.Repo)
	}
	// Exact name matches first (by stars), then names containing the query.
	want := []string{
		"https://github.com/CorvidLabs/fledge-plugin-deps", "https://github.com/alice/fledge-plugin-deps",
		"https://github.com/bob/deps-tools",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("order = %v\nwant %v", got, want)
	}
	e := res.Entries[0]
	if e.Name != "fledge-plugin-deps" || e.Slug != "deps" || e.Language != "rust" || e.Stars != 5 ||
		e.Version != "" || e.ClaimedTier != "" || e.DefaultBranch != "main" || e.Description != "Dependency audit" ||
		!e.UpdatedAt.Equal(time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)) || len(e.Topics) != 1 {
		t.Errorf("entry = %+v", e)
	}
	if res.Entries[2].Slug != "deps-tools" {
		t.Errorf("slug of a repo without the prefix = %q", res.Entries[2].Slug)
	}

	res, err = g.Search(context.Background(), Query{})
	if err != nil || len(res.Entries) != 4 {
		t.Fatalf("empty query: %v, %v", res, err)
	}
	if got := f.last(t).URL.Query().Get("q"); got != "topic:fledge-plugin" {
		t.Errorf("empty query q = %q", got)
	}
	for _, e := range res.Entries {
		if e.Name == "fledge-plugin-weather" && (e.Description != "" || e.Language != "") {
			t.Errorf("null description/language mapped to %q/%q", e.Description, e.Language)
		}
	}
}

func TestGitHubNoToken(t *testing.T) {
	t.Parallel()
	f, srv := newFakeGitHub(t)
	if _, err := newTestGitHubClient(t, srv, "").Search(context.Background(), Query{Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if got, ok := f.last(t).Header["Authorization"]; ok {
		t.Errorf("Authorization sent without a token: %q", got)
	}
}

func TestGitHubTokenOnlyOverHTTPSOrLoopback(t *testing.T) {
	t.Parallel()
	for api, keep := range map[string]bool{
		"https://ghe.example.com/api/v3": true, "http://ghe.example.com/api/v3": false,
		"http://127.0.0.1:9/api": true, "http://localhost:9/api": true, "http://[::1]:9/api": true,
	} {
		g, err := NewGitHubClient(Options{GitHubAPI: api, Token: secretToken})
		if err != nil {
			t.Fatal(err)
		}
		if (g.token != "") != keep {
			t.Errorf("%s: token kept = %v, want %v", api, g.token != "", keep)
		}
	}
	for _, api := range []string{"ftp://h/api", "api.github.com", "https://user:pw@h/api", "https://"} {
		if _, err := NewGitHubClient(Options{GitHubAPI: api}); err == nil {
			t.Errorf("NewGitHubClient(%q) succeeded", api)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("error leaks credentials: %v", err)
		}
	}
}

func TestGitHubLookup(t *testing.T) {
	t.Parallel()
	f, srv := newFakeGitHub(t)
	g := newTestGitHubClient(t, srv, "")
	res, err := g.Lookup(context.Background(), "deps")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.last(t).URL.Query().Get("q"); got != "topic:fledge-plugin deps in:name" {
		t.Errorf("q = %q", got)
	}
	if len(res.Entries) != 2 || res.Entries[0].Repo != "https://github.com/CorvidLabs/fledge-plugin-deps" ||
		res.Entries[1].Repo != "https://github.com/alice/fledge-plugin-deps" {
		t.Errorf("candidates = %+v", res.Entries)
	}

	f.mu.Lock()
	n := len(f.requests)
	f.mu.Unlock()
	for _, hostile := range []string{"deps user:evil", "deps\nx", "", strings.Repeat("a", 101), "../x", "a:b"} {
		res, err := g.Lookup(context.Background(), hostile)
		if err != nil || len(res.Entries) != 0 || res.Entries == nil {
			t.Errorf("Lookup(%q) = %+v, %v; want no candidates", hostile, res, err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) != n {
		t.Errorf("implausible names reached GitHub")
	}
}

func TestGitHubErrors(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		respond func(w http.ResponseWriter, r *http.Request)
		check   func(t *testing.T, err error)
	}{
		{"rate limited", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", fmt.Sprint(reset.Unix()))
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"message":"API rate limit exceeded for 127.0.0.1."}`))
		}, func(t *testing.T, err error) {
			var rl *RateLimitError
			if !errors.As(err, &rl) || !rl.Reset.Equal(reset) || rl.Authenticated {
				t.Errorf("err = %#v", err)
			}
			if !IsRateLimited(err) || !errors.Is(err, ErrUnavailable) {
				t.Errorf("rate limit not classified: %v", err)
			}
			if !strings.Contains(err.Error(), "resets at 2026-06-01T13:00:00Z") {
				t.Errorf("message = %q", err)
			}
		}},
		{"secondary rate limit", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusForbidden)
		}, func(t *testing.T, err error) {
			if !IsRateLimited(err) {
				t.Errorf("err = %v", err)
			}
		}},
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html>not json</html>"))
		}, func(t *testing.T, err error) {
			var se *StatusError
			if !errors.As(err, &se) || se.Status != 502 || !errors.Is(err, ErrUnavailable) {
				t.Errorf("err = %#v", err)
			}
		}},
		{"validation", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"message":"Validation Failed"}`))
		}, func(t *testing.T, err error) {
			if !strings.Contains(err.Error(), "HTTP 422 Unprocessable Entity: Validation Failed") {
				t.Errorf("err = %v", err)
			}
		}},
		{"not json", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"items":[{"name":1}]}`))
		}, func(t *testing.T, err error) {
			var ie *IndexError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "name: want a string, got number") {
				t.Errorf("err = %v", err)
			}
		}},
		{"bad item", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`{"total_count":1,"items":[{"name":"fledge-plugin-x","html_url":"javascript:alert(1)"}]}`))
		}, func(t *testing.T, err error) {
			if !strings.Contains(err.Error(), `entry 1 ("fledge-plugin-x"): repo: scheme "javascript"`) {
				t.Errorf("err = %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, srv := newFakeGitHub(t)
			f.respond = func(w http.ResponseWriter, r *http.Request) bool { tt.respond(w, r); return true }
			g := newTestGitHubClient(t, srv, "")
			g.now = func() time.Time { return reset.Add(-time.Minute) }
			_, err := g.Search(context.Background(), Query{Text: "x"})
			if err == nil {
				t.Fatal("search succeeded")
			}
			tt.check(t, err)
		})
	}
}

func TestGitHubUnauthorizedNeverShowsToken(t *testing.T) {
	t.Parallel()
	f, srv := newFakeGitHub(t)
	f.respond = func(w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"message":"Bad credentials"}`))
		return true
	}
	_, err := newTestGitHubClient(t, srv, secretToken).Search(context.Background(), Query{Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "Bad credentials") || !strings.Contains(err.Error(), "was rejected") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), secretToken) || strings.Contains(fmt.Sprintf("%+v %#v", err, Options{Token: secretToken}), secretToken) {
		t.Error("the token leaked into an error or a formatted Options")
	}
}

func TestGitHubIncomplete(t *testing.T) {
	t.Parallel()
	f, srv := newFakeGitHub(t)
	f.total = 250
	res, err := newTestGitHubClient(t, srv, "").Search(context.Background(), Query{})
	if err != nil || !res.Incomplete {
		t.Fatalf("res = %+v, %v; want Incomplete", res, err)
	}
}

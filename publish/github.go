package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/corvidlabs/fledge-go/registry"
)

// Bounds on the API conversation.
const (
	// DefaultTimeout bounds each API request (the Rust fledge's 30 s).
	DefaultTimeout = 30 * time.Second
	// maxResponse bounds a response body; GitHub's answers here are a few
	// KiB.
	maxResponse = 1 << 20
)

// ErrNoToken is returned when no GitHub token is given.
var ErrNoToken = errors.New("publishing needs a GitHub token")

// api is a GitHub REST client with a token.
type api struct {
	base      string
	token     registry.Token
	client    *http.Client
	timeout   time.Duration
	userAgent string
}

func newAPI(o Options) (*api, error) {
	if o.Token == "" {
		return nil, ErrNoToken
	}
	base := strings.TrimRight(o.API, "/")
	if base == "" {
		base = registry.DefaultGitHubAPI
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || u.User != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("GitHub API base %q: want an https URL such as %s, without credentials", registry.RedactURL(base), registry.DefaultGitHubAPI)
	}
	if u.Scheme != "https" && !registry.IsLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("GitHub API base %q: the token is only ever sent over https", registry.RedactURL(base))
	}
	a := &api{base: base, token: o.Token, client: o.HTTPClient,
		timeout: o.Timeout, userAgent: o.UserAgent}
	if a.timeout <= 0 {
		a.timeout = DefaultTimeout
	}
	if a.client == nil {
		// No redirects: a redirect could carry the token elsewhere.
		a.client = &http.Client{Timeout: a.timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if a.userAgent == "" {
		a.userAgent = "fledge"
	}
	return a, nil
}

// do sends one request and decodes a JSON answer into out (when out is
// not nil and the status is 2xx). It returns the status.
func (a *api) do(ctx context.Context, op, method, path string, body, out any) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Authorization", "Bearer "+string(a.token))
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", a.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is ours and said by op
		}
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s: read the answer: %w", op, err)
	}
	if len(data) > maxResponse {
		return resp.StatusCode, fmt.Errorf("%s: the answer is larger than %d bytes", op, maxResponse)
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, registry.NewStatusError(op, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s: the answer is not the JSON expected: %w", op, err)
		}
	}
	return resp.StatusCode, nil
}

// repo is what fledge needs of a repository.
type repo struct {
	Name        string  `json:"name"`
	FullName    string  `json:"full_name"`
	HTMLURL     string  `json:"html_url"`
	CloneURL    string  `json:"clone_url"`
	Private     bool    `json:"private"`
	Description *string `json:"description"`
}

func (a *api) user(ctx context.Context) (string, error) {
	var u struct {
		Login string `json:"login"`
	}
	if _, err := a.do(ctx, "find the token's user", http.MethodGet, "/user", nil, &u); err != nil {
		return "", err
	}
	if !validOwner(u.Login) {
		return "", fmt.Errorf("find the token's user: GitHub answered with no usable login")
	}
	return u.Login, nil
}

// getRepo returns the repository, or nil when it does not exist.
func (a *api) getRepo(ctx context.Context, owner, name string) (*repo, error) {
	var r repo
	status, err := a.do(ctx, "look up repository "+owner+"/"+name, http.MethodGet, "/repos/"+owner+"/"+name, nil, &r)
	if status == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func (a *api) createRepo(ctx context.Context, org, name, description string, private bool) (*repo, error) {
	path := "/user/repos"
	if org != "" {
		path = "/orgs/" + org + "/repos"
	}
	body := map[string]any{"name": name, "description": description, "private": private, "auto_init": false}
	var r repo
	op := "create repository " + name
	_, err := a.do(ctx, op, http.MethodPost, path, body, &r)
	var ae *registry.StatusError
	if errors.As(err, &ae) {
		switch ae.Status {
		case http.StatusUnprocessableEntity:
			return nil, fmt.Errorf("%w (the repository already exists, or the name is not valid on GitHub)", err)
		case http.StatusForbidden, http.StatusUnauthorized:
			return nil, fmt.Errorf("%w (check that the token may create repositories: the repo scope)", err)
		}
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func (a *api) setDescription(ctx context.Context, owner, name, description string) error {
	_, err := a.do(ctx, "update the description of "+owner+"/"+name, http.MethodPatch, "/repos/"+owner+"/"+name,
		map[string]any{"description": description}, nil)
	return err
}

// addTopic adds topic to the repository's topics, keeping the others.
// It reports whether it had to.
func (a *api) addTopic(ctx context.Context, owner, name, topic string) (bool, error) {
	var t struct {
		Names []string `json:"names"`
	}
	path := "/repos/" + owner + "/" + name + "/topics"
	if _, err := a.do(ctx, "read the topics of "+owner+"/"+name, http.MethodGet, path, nil, &t); err != nil {
		return false, err
	}
	for _, n := range t.Names {
		if n == topic {
			return false, nil
		}
	}
	names := append(t.Names, topic)
	if names == nil {
		names = []string{topic}
	}
	_, err := a.do(ctx, "set the topics of "+owner+"/"+name, http.MethodPut, path, map[string]any{"names": names}, nil)
	return err == nil, err
}

// validOwner reports whether s can be a GitHub user or organisation name
// in an API path.
func validOwner(s string) bool {
	if s == "" || len(s) > 39 || strings.HasPrefix(s, "-") {
		return false
	}
	for _, r := range s {
		if !(r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return false
		}
	}
	return true
}

// validRepoName reports whether s can be a GitHub repository name in an
// API path.
func validRepoName(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return false
		}
	}
	return true
}

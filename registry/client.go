package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// Environment variables that configure where plugins are found.
const (
	// EnvRegistryURL names a plugin index (http(s):// or file://). It wins
	// over registry.url in config.toml.
	EnvRegistryURL = "FLEDGE_REGISTRY_URL"
	// EnvGitHubAPI is the GitHub REST API base searched when no index is
	// configured (GitHub Enterprise, tests).
	EnvGitHubAPI = "FLEDGE_GITHUB_API"
	// DefaultGitHubAPI is GitHub's public REST API.
	DefaultGitHubAPI = "https://api.github.com"
	// DefaultTimeout bounds each request unless Options.Timeout says otherwise.
	DefaultTimeout = 30 * time.Second
)

// ErrUnavailable is wrapped by every error that means the registry could
// not be reached or would not answer (network, timeout, HTTP status, rate
// limit) and no cached copy could stand in.
var ErrUnavailable = errors.New("registry unavailable")

// Token is a credential. It formats as "[redacted]" so it cannot leak
// through a log line or an error message by accident.
type Token string

func (Token) String() string   { return "[redacted]" }
func (Token) GoString() string { return "[redacted]" }

// Options configures New. HTTP client, clock and base URLs are injected
// here so tests run against loopback servers.
type Options struct {
	// RegistryURL is a plugin index (http://, https:// or file://). Empty
	// means GitHub's repository search for the fledge-plugin topic.
	RegistryURL string
	// GitHubAPI is the REST API base for the search (default
	// DefaultGitHubAPI).
	GitHubAPI string
	// Token authenticates GitHub API requests (sent as a bearer token,
	// only over https or to a loopback host). It is never sent to an index.
	Token Token
	// HTTPClient makes the requests. Nil means a client with Timeout that
	// refuses redirects from https to http.
	HTTPClient *http.Client
	// Timeout bounds each request on top of the caller's context (default
	// DefaultTimeout).
	Timeout time.Duration
	// CacheFile caches an http(s) index (see home.Paths.RegistryCacheFile).
	// Empty disables the cache.
	CacheFile string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// UserAgent is sent with every request (default "fledge").
	UserAgent string
}

// OptionsFromEnv reads the registry configuration: FLEDGE_REGISTRY_URL,
// else configuredURL (registry.url from config.toml, see package config);
// FLEDGE_GITHUB_API; and the GitHub token (TokenFromEnv).
func OptionsFromEnv(getenv func(string) string, configuredURL string) Options {
	o := Options{
		RegistryURL: strings.TrimSpace(getenv(EnvRegistryURL)),
		GitHubAPI:   strings.TrimSpace(getenv(EnvGitHubAPI)),
	}
	if o.RegistryURL == "" {
		o.RegistryURL = strings.TrimSpace(configuredURL)
	}
	o.Token = TokenFromEnv(getenv)
	return o
}

// New returns the index the options describe: an IndexClient when
// RegistryURL is set, a GitHubClient otherwise.
func New(o Options) (Index, error) {
	o = o.withDefaults()
	if o.RegistryURL != "" {
		return NewIndexClient(o)
	}
	return NewGitHubClient(o)
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: o.Timeout, CheckRedirect: checkRedirect}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.UserAgent == "" {
		o.UserAgent = "fledge"
	}
	if o.GitHubAPI == "" {
		o.GitHubAPI = DefaultGitHubAPI
	}
	return o
}

// checkRedirect follows at most 5 redirects and never from https to http.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("too many redirects")
	}
	if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("refusing redirect from https to %s", req.URL.Scheme)
	}
	return nil
}

// fetch is one bounded GET.
type fetch struct {
	client    *http.Client
	timeout   time.Duration
	userAgent string
}

// get performs req with the timeout and returns the response with its body
// read (at most MaxIndexSize bytes) and closed.
func (f fetch) get(ctx context.Context, rawURL string, header http.Header) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", f.userAgent)
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, nil, scrubURLError(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxIndexSize+1))
	if err != nil {
		return resp, nil, fmt.Errorf("read response: %w", scrubURLError(err))
	}
	if len(body) > MaxIndexSize {
		return resp, nil, fmt.Errorf("response is larger than %d bytes", MaxIndexSize)
	}
	return resp, body, nil
}

// scrubURLError drops the URL from a *url.Error (the caller names the
// source itself, without credentials).
func scrubURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// StatusError is an HTTP answer that is not the one wanted: from an index,
// GitHub's search, or (package publish) GitHub's API.
type StatusError struct {
	// What names the request: its URL, or what it was doing ("create
	// repository acme/x").
	What   string
	Status int
	// Message is the server's own explanation, when it gave one (GitHub
	// does), truncated. It is network text: sanitise before showing it.
	Message string
}

// NewStatusError is the StatusError for an answer to what with status and
// body, taking GitHub's explanation ({"message": ...}) from body when there
// is one.
func NewStatusError(what string, status int, body []byte) *StatusError {
	se := &StatusError{What: what, Status: status}
	var msg struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &msg) == nil && utf8.ValidString(msg.Message) {
		se.Message = termsafe.Truncate(msg.Message, 300)
	}
	return se
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %d %s", e.What, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

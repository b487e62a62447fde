package registry

import (
	"net/url"
	"strings"
)

// TokenEnv names the environment variables that hold a GitHub token, in
// the order they are read: the Rust fledge's FLEDGE_GITHUB_TOKEN, then
// GITHUB_TOKEN (which it reads next), then gh's GH_TOKEN. Search, install
// and publish all read the one token this finds.
var TokenEnv = []string{"FLEDGE_GITHUB_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"}

// TokenEnvText is TokenEnv for messages: "FLEDGE_GITHUB_TOKEN, GITHUB_TOKEN
// or GH_TOKEN".
var TokenEnvText = strings.Join(TokenEnv[:len(TokenEnv)-1], ", ") + " or " + TokenEnv[len(TokenEnv)-1]

// TokenFromEnv returns the first token set in TokenEnv, trimmed, or "".
func TokenFromEnv(getenv func(string) string) Token {
	for _, k := range TokenEnv {
		if t := strings.TrimSpace(getenv(k)); t != "" {
			return Token(t)
		}
	}
	return ""
}

// GitHubAuth is a GitHub token and the API it belongs to, which decides
// where the token may go.
type GitHubAuth struct {
	Token Token
	// API is the GitHub REST API base (DefaultGitHubAPI when empty).
	API string
}

// GitHubAuthFromEnv reads the token (TokenFromEnv) and the API base
// (FLEDGE_GITHUB_API).
func GitHubAuthFromEnv(getenv func(string) string) GitHubAuth {
	return GitHubAuth{Token: TokenFromEnv(getenv), API: strings.TrimSpace(getenv(EnvGitHubAPI))}
}

// For returns the token when it may be sent to rawURL, else "". A token
// goes only over https (or plain http to a loopback host: a test server),
// and only to the API's host, or to github.com when the API is GitHub's
// own: a GitHub Enterprise token never reaches github.com, nor a
// github.com token any other host.
func (a GitHubAuth) For(rawURL string) Token {
	if a.Token == "" {
		return ""
	}
	api := a.API
	if api == "" {
		api = DefaultGitHubAPI
	}
	au, err := url.Parse(api)
	if err != nil || au.User != nil {
		return ""
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.User != nil {
		return ""
	}
	host, apiHost := strings.ToLower(u.Hostname()), strings.ToLower(au.Hostname())
	switch {
	case host == "":
		return ""
	case strings.EqualFold(u.Scheme, "https"):
	case strings.EqualFold(u.Scheme, "http") && isLoopbackHost(host):
	default:
		return ""
	}
	if host == apiHost || (apiHost == "api.github.com" && host == "github.com") {
		return a.Token
	}
	return ""
}

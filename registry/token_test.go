package registry

import "testing"

func TestTokenFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  map[string]string
		want Token
	}{
		{map[string]string{}, ""},
		{map[string]string{"GH_TOKEN": "gh"}, "gh"},
		{map[string]string{"GH_TOKEN": "gh", "GITHUB_TOKEN": "github"}, "github"},
		{map[string]string{"GH_TOKEN": "gh", "GITHUB_TOKEN": "github", "FLEDGE_GITHUB_TOKEN": "fledge"}, "fledge"},
		{map[string]string{"FLEDGE_GITHUB_TOKEN": "  ", "GITHUB_TOKEN": " github\n"}, "github"},
	} {
		if got := TokenFromEnv(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: token %q, want %q", tc.env, string(got), string(tc.want))
		}
	}
}

// A token goes over https (or http to a loopback test server), to the
// API's host, or to github.com for GitHub's own API: nowhere else.
func TestGitHubAuthFor(t *testing.T) {
	t.Parallel()
	gh := GitHubAuth{Token: "tok"}
	ghe := GitHubAuth{Token: "tok", API: "https://ghe.example.com/api/v3"}
	local := GitHubAuth{Token: "tok", API: "http://127.0.0.1:8080"}
	for _, tc := range []struct {
		a    GitHubAuth
		url  string
		want bool
	}{
		{gh, "https://github.com/o/r.git", true},
		{gh, "https://GitHub.com/o/r.git", true},
		{gh, "https://api.github.com/search/repositories", true},
		{gh, "http://github.com/o/r.git", false},
		{gh, "https://evil.example/o/r.git", false},
		{gh, "https://github.com.evil.example/o/r.git", false},
		{gh, "https://x@github.com/o/r.git", false},
		{gh, "ssh://git@github.com/o/r.git", false},
		{gh, "file:///tmp/r.git", false},
		{gh, "not a url", false},
		{ghe, "https://ghe.example.com/o/r.git", true},
		{ghe, "https://github.com/o/r.git", false},
		{local, "http://127.0.0.1:9/o/r.git", true},
		{local, "https://github.com/o/r.git", false},
		{GitHubAuth{API: "https://api.github.com"}, "https://github.com/o/r.git", false},
	} {
		if got := tc.a.For(tc.url) != ""; got != tc.want {
			t.Errorf("API %q, URL %s: sends the token %v", tc.a.API, tc.url, got)
		}
	}
}

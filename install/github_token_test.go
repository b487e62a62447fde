package install

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/corvidlabs/fledge-go/registry"
)

// Fetches carry the GitHub token where registry's rule sends it, and
// nowhere else; an Auth set by the caller wins.
func TestFetchesCarryTheGitHubToken(t *testing.T) {
	t.Parallel()
	in := &Installer{GitHub: registry.GitHubAuth{Token: "ghp_secret"}}
	auth := in.git().Auth
	if auth == nil {
		t.Fatal("no Auth with a token set")
	}
	if ba, ok := auth("https://github.com/o/fledge-plugin-x.git").(*githttp.BasicAuth); !ok || ba.Password != "ghp_secret" || ba.Username != "x-access-token" {
		t.Errorf("github.com over https: auth %#v", auth("https://github.com/o/fledge-plugin-x.git"))
	}
	for _, url := range []string{"https://gitlab.com/o/x.git", "http://github.com/o/x.git", "ssh://git@github.com/o/x.git"} {
		if a := auth(url); a != nil {
			t.Errorf("%s: the token was sent (%T)", url, a)
		}
	}
	ghe := &Installer{GitHub: registry.GitHubAuth{Token: "ghe", API: "https://ghe.example.com/api/v3"}}
	if a := ghe.git().Auth("https://github.com/o/x.git"); a != nil {
		t.Error("a GitHub Enterprise token was sent to github.com")
	}
	own := func(string) transport.AuthMethod { return &githttp.BasicAuth{Username: "me"} }
	in.Git.Auth = own
	if ba, _ := in.git().Auth("https://github.com/o/x.git").(*githttp.BasicAuth); ba == nil || ba.Username != "me" {
		t.Error("the caller's Auth was replaced")
	}
	if (&Installer{}).git().Auth != nil {
		t.Error("an Auth without a token")
	}
}

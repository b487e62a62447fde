package trust

import "github.com/corvidlabs/fledge-go/repourl"

// githubOwner returns the owner of a github.com repository URL, or false
// when the URL is anything else or anything about it is unusual: the one
// git-URL parser's strict answer (repourl.GitHubOwner).
func githubOwner(raw string) (string, bool) { return repourl.GitHubOwner(raw) }

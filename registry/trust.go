package registry

import (
	"strings"

	"github.com/corvidlabs/fledge-go/repourl"
)

// Tier is how far fledge trusts where a plugin came from.
type Tier string

// Trust tiers, from most to least trusted.
const (
	TierLocal      Tier = "local"      // a directory on this machine
	TierOfficial   Tier = "official"   // github.com/CorvidLabs
	TierTeam       Tier = "team"       // an org or user trusted in config.toml
	TierUnverified Tier = "unverified" // everything else
)

// OfficialOwner is the GitHub owner whose plugins are official.
const OfficialOwner = "CorvidLabs"

// TrustConfig lists the GitHub orgs and users the user trusts ([trust] in
// config.toml). Owners compare case-insensitively, as GitHub's do.
type TrustConfig struct {
	Orgs  []string
	Users []string
}

// TierOf decides a git URL's tier from its parsed, normalised form: the host
// must be exactly github.com over https or ssh, the path exactly
// /owner/repo, with no credentials, dot segments or percent-encoding. Any
// doubt makes a source unverified.
func TierOf(rawURL string, t TrustConfig) Tier {
	owner, ok := githubOwner(rawURL)
	if !ok {
		return TierUnverified
	}
	if strings.EqualFold(owner, OfficialOwner) {
		return TierOfficial
	}
	for _, o := range append(append([]string(nil), t.Orgs...), t.Users...) {
		if o != "" && strings.EqualFold(o, owner) {
			return TierTeam
		}
	}
	return TierUnverified
}

// TierOfSource is TierOf for a parsed source; local sources are TierLocal.
func TierOfSource(s Source, t TrustConfig) Tier {
	if s.Kind == SourceLocal {
		return TierLocal
	}
	return TierOf(s.URL, t)
}

// githubOwner returns the owner of a github.com repository URL, or false
// when the URL is anything else or anything about it is unusual (see
// repourl.GitHubOwner).
func githubOwner(raw string) (string, bool) { return repourl.GitHubOwner(raw) }

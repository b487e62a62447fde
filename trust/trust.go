package trust

import (
	"fmt"
	"strings"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// Tier is how far fledge trusts where a plugin came from.
type Tier string

// Trust tiers, from most to least trusted.
const (
	Local      Tier = "local"      // a directory on this machine
	Official   Tier = "official"   // github.com/CorvidLabs
	Team       Tier = "team"       // an org or user trusted in config.toml
	Unverified Tier = "unverified" // everything else
)

// Tiers lists every tier in the order they are shown (and policies list
// them).
var Tiers = []Tier{Local, Official, Team, Unverified}

// ParseTier reads a trust tier as users type it (official, team,
// unverified or local; any case).
func ParseTier(s string) (Tier, error) {
	switch t := Tier(strings.ToLower(strings.TrimSpace(s))); t {
	case Official, Team, Unverified, Local:
		return t, nil
	}
	return "", fmt.Errorf("trust tier %q: want official, team, unverified or local", termsafe.Truncate(s, 40))
}

// OfficialOwner is the GitHub owner whose plugins are official.
const OfficialOwner = "CorvidLabs"

// Config lists the GitHub orgs and users trusted ([trust] in config.toml,
// narrowed by the admin policy: see package settings). Owners compare
// case-insensitively, as GitHub's do.
type Config struct {
	Orgs  []string
	Users []string
}

// Of decides a git URL's tier from its parsed, normalised form: the host
// must be exactly github.com over https or ssh, the path exactly
// /owner/repo, with no credentials, dot segments or percent-encoding. Any
// doubt makes a source unverified.
func (c Config) Of(rawURL string) Tier {
	owner, ok := githubOwner(rawURL)
	if !ok {
		return Unverified
	}
	if strings.EqualFold(owner, OfficialOwner) {
		return Official
	}
	for _, o := range append(append([]string(nil), c.Orgs...), c.Users...) {
		if o != "" && strings.EqualFold(o, owner) {
			return Team
		}
	}
	return Unverified
}

// OfSource is the tier of a source: Local for a directory on this machine,
// else the tier of the URL it is fetched from (Of).
func (c Config) OfSource(local bool, rawURL string) Tier {
	if local {
		return Local
	}
	return c.Of(rawURL)
}

package trust

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	team := Config{Orgs: []string{"AcmeOrg"}, Users: []string{"alice"}}
	tests := map[string]Tier{
		"https://github.com/CorvidLabs/fledge-plugin-x":     Official,
		"https://github.com/corvidlabs/fledge-plugin-x.git": Official,
		"https://GitHub.com/CorvidLabs/fledge-plugin-x/":    Official,
		"ssh://git@github.com/CorvidLabs/x":                 Official,
		"git@github.com:CorvidLabs/x.git":                   Official,
		"https://github.com/acmeorg/x":                      Team,
		"https://github.com/ALICE/x":                        Team,
		"https://github.com/bob/x":                          Unverified,
		"https://github.com.evil.com/CorvidLabs/x":          Unverified,
		"https://evilgithub.com/CorvidLabs/x":               Unverified,
		"https://github.com@evil.com/CorvidLabs/x":          Unverified,
		"https://user:pw@github.com/CorvidLabs/x":           Unverified,
		"https://evil.com/github.com/CorvidLabs/x":          Unverified,
		"https://github.com/evil/../CorvidLabs/x":           Unverified,
		"https://github.com/CorvidLabs/../evil/x":           Unverified,
		"https://github.com/CorvidLabs/./x":                 Unverified,
		"https://github.com/%43orvidLabs/x":                 Unverified,
		"https://github.com/CorvidLabs%2F..%2Fevil/x":       Unverified,
		"http://github.com/CorvidLabs/x":                    Unverified,
		"git://github.com/CorvidLabs/x":                     Unverified,
		"https://github.com:8443/CorvidLabs/x":              Unverified,
		"ssh://evil@github.com/CorvidLabs/x":                Unverified,
		"file:///home/u/github.com/CorvidLabs/x":            Unverified,
		"https://github.com/CorvidLabs/x?y=1":               Unverified,
		"https://github.com/CorvidLabs/x#frag":              Unverified,
		"https://github.com/CorvidLabs":                     Unverified,
		"https://github.com/CorvidLabs/x/y":                 Unverified,
		"https://github.com./CorvidLabs/x":                  Unverified,
		"https://xn--github-com/CorvidLabs/x":               Unverified,
		"git@github.com.evil.com:CorvidLabs/x":              Unverified,
		"evil@github.com:CorvidLabs/x":                      Unverified,
	}
	for u, want := range tests {
		if got := team.Of(u); got != want {
			t.Errorf("Of(%q) = %s, want %s", u, got, want)
		}
	}
}

func TestOfSource(t *testing.T) {
	c := Config{Users: []string{"alice"}}
	if got := c.OfSource(true, "https://github.com/alice/x"); got != Local {
		t.Errorf("a local source: %s, want local", got)
	}
	if got := c.OfSource(false, "https://github.com/alice/x"); got != Team {
		t.Errorf("a trusted user's repository: %s, want team", got)
	}
}

func TestParseTier(t *testing.T) {
	for _, s := range []string{"official", "Team", " unverified ", "local"} {
		if _, err := ParseTier(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if _, err := ParseTier("trusted"); err == nil || !strings.Contains(err.Error(), "official, team, unverified or local") {
		t.Errorf("bad tier: %v", err)
	}
}

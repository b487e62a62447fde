package registry

import "github.com/corvidlabs/fledge-go/trust"

// The trust tiers and configuration are package trust's; these names stay
// for the install code and tests that spell them registry.Tier*, so
// moving them did not touch those files.
type (
	// Tier is trust.Tier.
	Tier = trust.Tier
	// TrustConfig is trust.Config.
	TrustConfig = trust.Config
)

// Trust tiers: trust's.
const (
	TierLocal      = trust.Local
	TierOfficial   = trust.Official
	TierTeam       = trust.Team
	TierUnverified = trust.Unverified
)

// TierOfSource is the tier of a parsed source: local sources are
// TierLocal, the rest are judged on their URL (trust.Config.Of).
func TierOfSource(s Source, t TrustConfig) Tier {
	return t.OfSource(s.Kind == SourceLocal, s.URL)
}

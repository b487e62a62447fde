package policy

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Provenance levels a [provenance] require rule may name (package
// lockfile's level names, and "signed" for either signed level).
const (
	RequireUnsigned     = "unsigned"
	RequireSigned       = "signed"
	RequireSignedCommit = "signed-commit"
	RequireSignedTag    = "signed-tag"
)

// ItemProvenance is the Denial item of the [provenance] rules.
const ItemProvenance = "provenance"

// provenanceRules is a layer's [provenance] table:
//
//	[provenance]
//	allowed_signers = ["/etc/fledge/allowed_signers", "release-key.asc"]
//	require = "signed"                  # every source
//	[provenance.tiers]
//	unverified = "signed-tag"           # sources of a tier
//	[[provenance.sources]]
//	match = "github.com/acme/*"         # sources a pattern matches
//	require = "signed-tag"
type provenanceRules struct {
	AllowedSigners []string     `toml:"allowed_signers"`
	Require        string       `toml:"require"`
	Tiers          *tierStrings `toml:"tiers"`
	Sources        []struct {
		Match   string `toml:"match"`
		Require string `toml:"require"`
	} `toml:"sources"`
}

type tierStrings struct {
	Local      *string `toml:"local"`
	Official   *string `toml:"official"`
	Team       *string `toml:"team"`
	Unverified *string `toml:"unverified"`
}

func (t *tierStrings) byTier() map[string]*string {
	return map[string]*string{"local": t.Local, "official": t.Official, "team": t.Team, "unverified": t.Unverified}
}

// provenanceLayer is a layer's [provenance] rules, validated.
type provenanceLayer struct {
	signers []string          // absolute paths
	require string            // every source
	tiers   map[string]string // tier → level
	sources []sourceRequire
}

type sourceRequire struct {
	p       pattern
	require string
}

func (pl *provenanceLayer) empty() bool {
	return pl == nil || len(pl.signers) == 0 && pl.require == "" && len(pl.tiers) == 0 && len(pl.sources) == 0
}

// requireRank orders what a rule may require: 0 nothing, 1 a signed
// commit or tag, 2 a signed tag; -1 for a name that is none of them.
func requireRank(level string) int {
	switch level {
	case "", RequireUnsigned:
		return 0
	case RequireSigned, RequireSignedCommit:
		return 1
	case RequireSignedTag:
		return 2
	}
	return -1
}

func (l *Layer) loadProvenance(r *provenanceRules) error {
	if r == nil {
		return nil
	}
	pl := &provenanceLayer{}
	check := func(key, v string) error {
		if requireRank(v) < 0 {
			return fmt.Errorf("%s = %q: want %q, %q, %q or %q", l.Rule("provenance", key), v, RequireSigned, RequireSignedTag, RequireSignedCommit, RequireUnsigned)
		}
		return nil
	}
	for _, f := range r.AllowedSigners {
		if strings.TrimSpace(f) == "" {
			return fmt.Errorf("%s: an empty path", l.Rule("provenance", "allowed_signers"))
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(l.File), f)
		}
		pl.signers = append(pl.signers, filepath.Clean(f))
	}
	if err := check("require", r.Require); err != nil {
		return err
	}
	pl.require = r.Require
	if r.Tiers != nil {
		pl.tiers = map[string]string{}
		for _, tier := range tiers() {
			if v := r.Tiers.byTier()[tier]; v != nil {
				if err := check("tiers."+tier, *v); err != nil {
					return err
				}
				pl.tiers[tier] = *v
			}
		}
	}
	for i, s := range r.Sources {
		pt, err := parsePattern(s.Match)
		if err != nil {
			return fmt.Errorf("%s: sources[%d] match: %w", l.Rule("provenance", "sources"), i, err)
		}
		if err := check(fmt.Sprintf("sources[%d].require", i), s.Require); err != nil {
			return err
		}
		pl.sources = append(pl.sources, sourceRequire{p: pt, require: s.Require})
	}
	l.provenance = pl
	return nil
}

// AllowedSigners lists the allowed-signers files the layers name, system
// first (relative paths are read from the policy file's directory).
func (s *Set) AllowedSigners() []string {
	var out []string
	for _, l := range s.Layers() {
		if l.provenance != nil {
			out = append(out, l.provenance.signers...)
		}
	}
	return out
}

// Signature is what CheckProvenance judges of a fetched revision.
type Signature struct {
	// Level is lockfile's level name (signed-tag, signed-commit,
	// unsigned).
	Level string
	// Signer is the key (for messages).
	Signer string
	// VouchedBy is the allowed-signers file that vouched for the signer;
	// "" when none did (unsigned, or trusted on first use).
	VouchedBy string
}

// CheckProvenance refuses a signature below what a layer requires of src
// (of tier): its require, its rule for the tier, and every
// [[provenance.sources]] rule that matches src. A signed level counts only
// when an allowed-signers file vouched for the signer — one of the
// policy's own when any layer names some, so a user's config.toml cannot
// vouch for a signer the administrator does not know.
func (s *Set) CheckProvenance(src Source, tier string, sig Signature) *Denial {
	policyFiles := s.AllowedSigners()
	vouched := sig.VouchedBy != ""
	if len(policyFiles) > 0 {
		vouched = false
		for _, f := range policyFiles {
			vouched = vouched || f == sig.VouchedBy
		}
	}
	got := 0
	switch sig.Level {
	case RequireSignedTag:
		got = 2
	case RequireSignedCommit:
		got = 1
	}
	ids, _ := src.identities()
	for _, l := range s.Layers() {
		pl := l.provenance
		if pl.empty() {
			continue
		}
		type want struct{ rule, level string }
		var wants []want
		if pl.require != "" {
			wants = append(wants, want{l.Rule("provenance", "require"), pl.require})
		}
		if v, ok := pl.tiers[tier]; ok {
			wants = append(wants, want{l.Rule("provenance.tiers", tier), v})
		}
		for _, sr := range pl.sources {
			// A rule pinned to a commit applies while the commit is not
			// known: the stricter reading.
			if _, ok := anyMatch([]pattern{sr.p}, ids, true); ok {
				wants = append(wants, want{l.Rule("provenance", "sources") + fmt.Sprintf(" match = %q", sr.p.text), sr.require})
			}
		}
		for _, w := range wants {
			need := requireRank(w.level)
			if need == 0 || (got >= need && vouched) {
				continue
			}
			return &Denial{Item: ItemProvenance, Rule: w.rule, File: l.Where(), Reason: provenanceReason(w.level, src, sig, got >= need, policyFiles)}
		}
	}
	return nil
}

func provenanceReason(level string, src Source, sig Signature, levelMet bool, policyFiles []string) string {
	wanted := "a signed tag or commit"
	if level == RequireSignedTag {
		wanted = "a signed tag"
	}
	var got string
	switch {
	case sig.Level == "" || sig.Level == RequireUnsigned:
		got = "it is unsigned"
	case !levelMet:
		got = fmt.Sprintf("it is only a %s (by %s)", sig.Level, sig.Signer)
	case len(policyFiles) > 0:
		got = fmt.Sprintf("its signer %s is in none of the policy's allowed_signers (%s)", sig.Signer, strings.Join(policyFiles, ", "))
	default:
		got = fmt.Sprintf("its signer %s is in no allowed_signers file", sig.Signer)
	}
	return fmt.Sprintf("= %q wants %s by a trusted signer for %s, and %s", level, wanted, describe(src), got)
}

package lockfile

// Provenance levels, from the strongest: a signed tag vouches for the tag
// name and the commit it names, a signed commit for the commit alone.
const (
	LevelSignedTag    = "signed-tag"
	LevelSignedCommit = "signed-commit"
	LevelUnsigned     = "unsigned"
)

// Levels lists the provenance levels, strongest first.
var Levels = []string{LevelSignedTag, LevelSignedCommit, LevelUnsigned}

// LevelRank orders levels: higher is stronger; -1 for a name that is not
// a level.
func LevelRank(level string) int {
	for i, l := range Levels {
		if l == level {
			return len(Levels) - 1 - i
		}
	}
	return -1
}

// VouchedFirstUse is Provenance.VouchedBy for a signer no trusted key
// vouched for, pinned because it signed the first install (trust on first
// use).
const VouchedFirstUse = "first-use"

// Provenance is who signed an installed revision, as verified when it was
// fetched (install, update, sync; never when it runs). A git source fills
// it from the tag's and the commit's signatures (package provenance);
// another kind of source (an OCI artifact) fills the same record from its
// own signature.
type Provenance struct {
	// Level is one of the Level constants.
	Level string `toml:"level"`
	// Signer is the signing key: "SHA256:…" (OpenSSH's fingerprint) for
	// an SSH key, the upper-case hex fingerprint of the primary key for
	// OpenPGP; "" when unsigned.
	Signer string `toml:"signer,omitempty"`
	// Principal is the identity vouched for the signer: the principals of
	// its allowed-signers line, or the OpenPGP key's user id.
	Principal string `toml:"principal,omitempty"`
	// Format is "ssh" or "openpgp" (the signature's kind).
	Format string `toml:"format,omitempty"`
	// VouchedBy is the trusted-signers file that listed the key, or
	// VouchedFirstUse.
	VouchedBy string `toml:"vouched_by,omitempty"`
	// Object is the git object whose signature was verified (the tag
	// object for signed-tag, the commit for signed-commit).
	Object string `toml:"object,omitempty"`
}

// Signed reports whether p records a verified signature.
func (p *Provenance) Signed() bool {
	return p != nil && LevelRank(p.Level) > LevelRank(LevelUnsigned)
}

// Trusted reports whether a trusted key (not first use) vouched for p's
// signer.
func (p *Provenance) Trusted() bool {
	return p.Signed() && p.VouchedBy != "" && p.VouchedBy != VouchedFirstUse
}

// LevelOf is p's level, LevelUnsigned for no record.
func (p *Provenance) LevelOf() string {
	if p == nil || p.Level == "" {
		return LevelUnsigned
	}
	return p.Level
}

// Describe says who signed, for people: "a signed-tag by SHA256:…
// (ann@example.com), vouched for by FILE", "…, trusted on first use", or
// "unsigned".
func (p *Provenance) Describe() string {
	if !p.Signed() {
		return LevelUnsigned
	}
	s := "a " + p.Level + " by " + p.Signer
	if p.Principal != "" {
		s += " (" + p.Principal + ")"
	}
	switch p.VouchedBy {
	case VouchedFirstUse:
		s += ", trusted on first use"
	case "":
	default:
		s += ", vouched for by " + p.VouchedBy
	}
	return s
}

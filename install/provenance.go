package install

import (
	"errors"
	"fmt"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/grantlog"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/provenance"
)

// Sentinels a *ProvenanceError wraps.
var (
	ErrProvenanceDowngrade = errors.New("provenance downgrade")
	ErrSignerChanged       = errors.New("signer changed")
)

// ProvenanceError reports a revision signed at a lower level than, or by
// another signer than, what is recorded for the plugin: update and sync
// never take it silently. The plugin is left as it was.
type ProvenanceError struct {
	Plugin string
	// Downgrade is set for a lower level; otherwise the signer changed.
	Downgrade bool
	// Recorded is what the record says, Got what the fetched revision
	// carries; Against names the record ("installed", or "the synced
	// plugins.toml").
	Recorded, Got lockfile.Provenance
	Against       string
	// Commit is the fetched revision's commit.
	Commit string
}

func (e *ProvenanceError) Error() string {
	what := "provenance downgrade"
	if !e.Downgrade {
		what = "signer changed"
	}
	return fmt.Sprintf("%s: %s: %s is %s, and the fetched commit %s is %s; fledge does not take a lower level or another signer silently",
		e.Plugin, what, e.Against, e.Recorded.Describe(), short(e.Commit), e.Got.Describe())
}

func (e *ProvenanceError) Unwrap() error {
	if e.Downgrade {
		return ErrProvenanceDowngrade
	}
	return ErrSignerChanged
}

// verifyCheckout says who signed a revision checked out into tree (its
// .git still there), against the trusted signers in force.
func (in *Installer) verifyCheckout(tree string, rev gitfetch.Revision, commit string) (*lockfile.Provenance, []string, error) {
	tag, c, err := gitfetch.Signed(tree, rev, commit)
	if err != nil {
		return nil, nil, err
	}
	signers, err := provenance.Load(in.Settings.AllowedSigners())
	if err != nil {
		return nil, nil, err
	}
	res, err := provenance.Verify(provenance.Signed{Tag: tag, Commit: c}, signers)
	if err != nil {
		return nil, nil, err
	}
	return &res.Provenance, res.Notes, nil
}

// signatureOf is what the policy's [provenance] rules judge of p: a
// first-use signer is vouched for by no file.
func signatureOf(p *lockfile.Provenance) policy.Signature {
	if p == nil { // a record never verified (a local plugin, a Rust-era one)
		return policy.Signature{Level: p.LevelOf()}
	}
	sig := policy.Signature{Level: p.LevelOf(), Signer: p.Signer}
	if p.Trusted() {
		sig.VouchedBy = p.VouchedBy
	}
	return sig
}

// recorded is a provenance a fetched revision is held to.
type recorded struct {
	p       *lockfile.Provenance
	against string
}

// checkProvenance refuses a candidate whose provenance the admin policy's
// [provenance] require does not accept, or that is lower than (or signed
// by another signer than) one of against, unless AcceptProvenance or
// the terminal accepted it. It returns the override to log ("" when
// nothing was lowered).
func (in *Installer) checkProvenance(c *candidate, against ...recorded) (string, error) {
	f := c.f
	got := f.prov
	if got == nil {
		got = &lockfile.Provenance{Level: lockfile.LevelUnsigned}
	}
	fe, err := in.newFetcher(f.src)
	if err != nil {
		return "", err
	}
	if d := in.policy().CheckProvenance(fe.identity(f.registry), string(f.tier), signatureOf(got)); d != nil {
		return "", policy.Deny(c.m.Plugin.Name, *d)
	}
	for _, r := range against {
		e := changed(c.m.Plugin.Name, r, got)
		if e == nil {
			continue
		}
		e.Commit = f.commit
		switch {
		case in.AcceptProvenance != "":
			return "--accept-provenance: " + in.AcceptProvenance, nil
		case in.Consent.ConfirmProvenance != nil:
			ok, err := in.Consent.ConfirmProvenance(e)
			if err != nil {
				return "", err
			}
			if ok {
				return "re-approved on a terminal", nil
			}
		}
		return "", e
	}
	return "", nil
}

// changed compares got with a recorded provenance: nil when it is not
// lower and its signer is the same. A new key counts as the same signer
// when a trusted allowed-signers file vouches for it under the recorded
// principal (a key rotated by whoever keeps that file).
func changed(plugin string, r recorded, got *lockfile.Provenance) *ProvenanceError {
	rec := r.p
	if rec == nil || rec.Level == "" {
		return nil // never verified: nothing to lower
	}
	e := &ProvenanceError{Plugin: plugin, Recorded: *rec, Got: *got, Against: r.against}
	if lockfile.LevelRank(got.LevelOf()) < lockfile.LevelRank(rec.LevelOf()) {
		e.Downgrade = true
		return e
	}
	if rec.Signer == "" || got.Signer == rec.Signer {
		return nil
	}
	if got.Trusted() && rec.Principal != "" && got.Principal == rec.Principal {
		return nil
	}
	return e
}

// provenanceNote is the grant log's note of a change from before to
// after: nil when who signed is unchanged, and for an unsigned revision
// where nothing was recorded before.
func provenanceNote(before, after *lockfile.Provenance, override string) *grantlog.Provenance {
	same := before != nil && after != nil && *before == *after || before == nil && !after.Signed()
	if after == nil || same && override == "" {
		return nil
	}
	return &grantlog.Provenance{From: logSigner(before), To: logSigner(after), Override: override}
}

func logSigner(p *lockfile.Provenance) *grantlog.Signer {
	if p == nil {
		return nil
	}
	return &grantlog.Signer{Level: p.LevelOf(), Signer: p.Signer, Principal: p.Principal, VouchedBy: p.VouchedBy}
}

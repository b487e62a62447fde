package provenance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/corvidlabs/fledge-go/lockfile"
)

// BadSignatureError reports a signature that does not match what it
// signs (or cannot be read): the object was changed after signing, or the
// signature was made for something else.
type BadSignatureError struct {
	// Object is "tag v1.2.0 (<hash>)" or "commit <hash>".
	Object string
	Signer string // the key the signature names, when known
	Err    error
}

func (e *BadSignatureError) Error() string {
	by := ""
	if e.Signer != "" {
		by = " by " + e.Signer
	}
	return fmt.Sprintf("the signature%s on %s does not verify: %v; it was not made for this content", by, e.Object, e.Err)
}

func (e *BadSignatureError) Unwrap() error { return e.Err }

// Signed is what a fetch checked out, for Verify: the annotated tag (nil
// for a lightweight tag or no tag) and the commit.
type Signed struct {
	Tag    *object.Tag
	Commit *object.Commit
}

// Result is a verification: the record, and notes on signatures that were
// found and not accepted (an unknown OpenPGP key, an expired or revoked
// one, an allowed-signers line that does not cover it), for people.
type Result struct {
	Provenance lockfile.Provenance
	Notes      []string
}

// Verify says who signed s, checking the tag's signature, then the
// commit's, against trusted (nil: no one). It returns a
// *BadSignatureError when a signature does not match its object.
func Verify(s Signed, trusted *Signers) (Result, error) {
	var res Result
	if t := s.Tag; t != nil && t.PGPSignature != "" {
		what := fmt.Sprintf("tag %s (%s)", t.Name, short(t.Hash))
		p, note, err := verifyOne(what, t.PGPSignature, func(w io.Writer) error { return encodeTag(t, w) },
			func(armored string) (*openpgp.Entity, error) { return t.Verify(armored) }, t.Tagger.When, trusted)
		if err != nil {
			return res, err
		}
		if p != nil {
			p.Level, p.Object = lockfile.LevelSignedTag, t.Hash.String()
			res.Provenance = *p
		}
		res.Notes = appendNote(res.Notes, note)
	}
	if c := s.Commit; c != nil && c.PGPSignature != "" {
		what := "commit " + short(c.Hash)
		p, note, err := verifyOne(what, c.PGPSignature, func(w io.Writer) error { return encodeCommit(c, w) },
			func(armored string) (*openpgp.Entity, error) { return c.Verify(armored) }, c.Committer.When, trusted)
		if err != nil {
			return res, err
		}
		if p != nil && res.Provenance.Level == "" {
			p.Level, p.Object = lockfile.LevelSignedCommit, c.Hash.String()
			res.Provenance = *p
		}
		res.Notes = appendNote(res.Notes, note)
	}
	if res.Provenance.Level == "" {
		res.Provenance = lockfile.Provenance{Level: lockfile.LevelUnsigned}
	}
	return res, nil
}

func appendNote(notes []string, n string) []string {
	if n == "" {
		return notes
	}
	return append(notes, n)
}

func short(h plumbing.Hash) string { return h.String()[:12] }

// verifyOne checks one signature. It returns the signer (nil when the
// signature is not accepted, with a note saying why) or an error when
// the signature is bad.
func verifyOne(what, sig string, payload func(io.Writer) error, pgpVerify func(string) (*openpgp.Entity, error), when time.Time, trusted *Signers) (*lockfile.Provenance, string, error) {
	switch {
	case strings.HasPrefix(sig, "-----BEGIN SSH SIGNATURE-----"):
		return verifySSH(what, sig, payload, when, trusted)
	case strings.HasPrefix(sig, "-----BEGIN PGP SIGNATURE-----"):
		return verifyPGP(what, pgpVerify, trusted)
	}
	kind, _, _ := strings.Cut(strings.TrimPrefix(sig, "-----BEGIN "), "-----")
	return nil, fmt.Sprintf("%s carries a %s signature, which fledge does not verify (it verifies SSH and OpenPGP)", what, strings.ToLower(kind)), nil
}

func verifySSH(what, armored string, payload func(io.Writer) error, when time.Time, trusted *Signers) (*lockfile.Provenance, string, error) {
	sig, err := sshsig.Unarmor([]byte(armored))
	if err != nil {
		return nil, "", &BadSignatureError{Object: what, Err: err}
	}
	fp := ssh.FingerprintSHA256(sig.PublicKey)
	if sig.Namespace != GitNamespace {
		return nil, "", &BadSignatureError{Object: what, Signer: fp, Err: fmt.Errorf("it was made for the namespace %q, not git's %q", sig.Namespace, GitNamespace)}
	}
	var body bytes.Buffer
	if err := payload(&body); err != nil {
		return nil, "", err
	}
	if err := sshsig.Verify(&body, sig, sig.PublicKey, sig.HashAlgorithm, GitNamespace); err != nil {
		return nil, "", &BadSignatureError{Object: what, Signer: fp, Err: err}
	}
	p := &lockfile.Provenance{Signer: fp, Format: "ssh", VouchedBy: lockfile.VouchedFirstUse}
	var refused []string
	if trusted != nil {
		for i := range trusted.ssh {
			a := &trusted.ssh[i]
			ok, why := a.allows(sig.PublicKey, when)
			if ok {
				p.Principal, p.VouchedBy = a.principals, a.file
				return p, "", nil
			}
			if why != "" {
				refused = append(refused, why)
			}
		}
	}
	if len(refused) > 0 {
		// Listed, but not for this: an expired or narrowed key is not an
		// unknown one to be trusted on first use.
		return nil, fmt.Sprintf("%s is signed by %s, not accepted: %s", what, fp, strings.Join(refused, "; ")), nil
	}
	return p, "", nil
}

func verifyPGP(what string, pgpVerify func(string) (*openpgp.Entity, error), trusted *Signers) (*lockfile.Provenance, string, error) {
	var refused []string
	if trusted != nil {
		for _, k := range trusted.pgp {
			e, err := pgpVerify(k.armored)
			switch {
			case err == nil:
				return &lockfile.Provenance{Signer: strings.ToUpper(fmt.Sprintf("%x", e.PrimaryKey.Fingerprint)), Principal: identity(e), Format: "openpgp", VouchedBy: k.file}, "", nil
			case errors.Is(err, pgperrors.ErrUnknownIssuer):
				continue
			case errors.Is(err, pgperrors.ErrKeyExpired), errors.Is(err, pgperrors.ErrKeyRevoked), errors.Is(err, pgperrors.ErrSignatureExpired),
				errors.Is(err, pgperrors.ErrSignatureOlderThanKey):
				refused = append(refused, fmt.Sprintf("%s: %v", k.file, err))
			default:
				return nil, "", &BadSignatureError{Object: what, Err: err}
			}
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Sprintf("%s has an OpenPGP signature that is not accepted: %s", what, strings.Join(refused, "; ")), nil
	}
	return nil, fmt.Sprintf("%s has an OpenPGP signature by a key no allowed-signers file holds, so it cannot be checked: add the signer's public key (gpg --export --armor KEYID > FILE) to [provenance] allowed_signers", what), nil
}

// identity is the key's primary user id (its email when it has one).
func identity(e *openpgp.Entity) string {
	if id := e.PrimaryIdentity(); id != nil {
		if id.UserId != nil && id.UserId.Email != "" {
			return id.UserId.Email
		}
		return id.Name
	}
	return ""
}

func encodeTag(t *object.Tag, w io.Writer) error {
	o := &plumbing.MemoryObject{}
	if err := t.EncodeWithoutSignature(o); err != nil {
		return err
	}
	return copyObject(o, w)
}

func encodeCommit(c *object.Commit, w io.Writer) error {
	o := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(o); err != nil {
		return err
	}
	return copyObject(o, w)
}

func copyObject(o *plumbing.MemoryObject, w io.Writer) error {
	r, err := o.Reader()
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

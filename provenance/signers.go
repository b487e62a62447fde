package provenance

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"golang.org/x/crypto/ssh"
)

// GitNamespace is the SSHSIG namespace git signs tags and commits in.
const GitNamespace = "git"

// Signers are the trusted signers read from files. The zero value (and
// nil) trusts no one.
type Signers struct {
	ssh  []allowedSigner
	pgp  []keyring
	file []string
}

// allowedSigner is one line of an allowed-signers file.
type allowedSigner struct {
	file       string
	line       int
	principals string
	key        ssh.PublicKey
	namespaces []string // nil: any
	after      time.Time
	before     time.Time
}

// keyring is an armored OpenPGP public key file.
type keyring struct {
	file    string
	armored string
}

// Files lists the files the signers were read from, in order.
func (s *Signers) Files() []string {
	if s == nil {
		return nil
	}
	return s.file
}

// Empty reports whether s trusts no one.
func (s *Signers) Empty() bool { return s == nil || len(s.ssh)+len(s.pgp) == 0 }

// SignersError reports a trusted-signers file that cannot be read or
// parsed; its message names the file (and the line).
type SignersError struct {
	File string
	Err  error
}

func (e *SignersError) Error() string { return e.Err.Error() }
func (e *SignersError) Unwrap() error { return e.Err }

// Load reads each file: git's allowed-signers format, or an armored
// OpenPGP public key block. A file that cannot be read or parsed is a
// *SignersError naming it (and the line): a trusted key that silently
// does not count would read as a downgrade later.
func Load(files []string) (*Signers, error) {
	s := &Signers{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, &SignersError{File: f, Err: fmt.Errorf("allowed signers %s: %w", f, err)}
		}
		if err := s.add(f, data); err != nil {
			return nil, &SignersError{File: f, Err: err}
		}
	}
	return s, nil
}

var pgpBlock = []byte("-----BEGIN PGP PUBLIC KEY BLOCK-----")

func (s *Signers) add(file string, data []byte) error {
	s.file = append(s.file, file)
	if bytes.Contains(data, pgpBlock) {
		if _, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(data)); err != nil {
			return fmt.Errorf("allowed signers %s: not a valid OpenPGP public key block: %w (export one with gpg --export --armor KEYID)", file, err)
		}
		s.pgp = append(s.pgp, keyring{file: file, armored: string(data)})
		return nil
	}
	lines, err := ParseAllowedSigners(file, data)
	if err != nil {
		return err
	}
	s.ssh = append(s.ssh, lines...)
	return nil
}

// ParseAllowedSigners reads git's allowed-signers format (ssh-keygen(1),
// ALLOWED SIGNERS): one "principals [options] keytype key [comment]" a
// line, # comments and blank lines ignored. It returns the signers of
// data; file names it in errors.
func ParseAllowedSigners(file string, data []byte) ([]allowedSigner, error) {
	var out []allowedSigner
	for i, raw := range strings.Split(string(data), "\n") {
		n := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' {
			continue
		}
		as, err := parseSignerLine(line)
		if err != nil {
			return nil, fmt.Errorf("allowed signers %s, line %d: %w", file, n, err)
		}
		as.file, as.line = file, n
		out = append(out, as)
	}
	return out, nil
}

func parseSignerLine(line string) (allowedSigner, error) {
	principals, rest, err := firstField(line)
	if err != nil {
		return allowedSigner{}, err
	}
	if strings.TrimSpace(principals) == "" {
		return allowedSigner{}, errors.New(`the principals are empty: name who the key is, such as "ann@example.com"`)
	}
	if rest == "" {
		return allowedSigner{}, errors.New(`want "principals [options] keytype key": the key is missing`)
	}
	key, _, opts, _, err := ssh.ParseAuthorizedKey([]byte(rest))
	if err != nil {
		return allowedSigner{}, fmt.Errorf("the key of %q: %w", principals, err)
	}
	as := allowedSigner{principals: principals, key: key}
	for _, o := range opts {
		name, val, hasVal := strings.Cut(o, "=")
		val = strings.Trim(val, `"`)
		switch strings.ToLower(name) {
		case "cert-authority":
			return as, errors.New("cert-authority lines are not supported: list the signing keys themselves")
		case "namespaces":
			if !hasVal || val == "" {
				return as, errors.New(`namespaces needs a value, such as namespaces="git"`)
			}
			as.namespaces = strings.Split(val, ",")
		case "valid-after", "valid-before":
			t, err := parseSignerTime(val)
			if err != nil {
				return as, fmt.Errorf("%s=%q: %w", name, val, err)
			}
			if name == "valid-after" {
				as.after = t
			} else {
				as.before = t
			}
		default:
			return as, fmt.Errorf("unknown option %q (allowed: namespaces, valid-after, valid-before)", name)
		}
	}
	return as, nil
}

// firstField splits off the principals: up to the first blank, or a
// double-quoted string.
func firstField(line string) (field, rest string, err error) {
	if strings.HasPrefix(line, `"`) {
		end := strings.IndexByte(line[1:], '"')
		if end < 0 {
			return "", "", errors.New("the principals' opening quote is never closed")
		}
		return line[1 : end+1], strings.TrimSpace(line[end+2:]), nil
	}
	field, rest, _ = strings.Cut(line, " ")
	if i := strings.IndexByte(field, '\t'); i >= 0 {
		field, rest = field[:i], field[i+1:]+" "+rest
	}
	return field, strings.TrimSpace(rest), nil
}

// parseSignerTime reads ssh-keygen's YYYYMMDD[HHMM[SS]][Z] (Z: UTC, else
// local time).
func parseSignerTime(v string) (time.Time, error) {
	loc := time.Local
	if s, ok := strings.CutSuffix(v, "Z"); ok {
		v, loc = s, time.UTC
	}
	layouts := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}
	layout, ok := layouts[len(v)]
	if !ok {
		return time.Time{}, errors.New("want YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, with Z for UTC")
	}
	return time.ParseInLocation(layout, v, loc)
}

// allows reports whether the line lets key sign in the git namespace at
// when; why says why not when it is the line's key.
func (a *allowedSigner) allows(key ssh.PublicKey, when time.Time) (ok bool, why string) {
	if !bytes.Equal(a.key.Marshal(), key.Marshal()) {
		return false, ""
	}
	where := fmt.Sprintf("%s, line %d", a.file, a.line)
	if a.namespaces != nil && !anyMatch(a.namespaces, GitNamespace) {
		return false, fmt.Sprintf("%s lists the key only for namespaces %q, not %q", where, strings.Join(a.namespaces, ","), GitNamespace)
	}
	if !a.after.IsZero() && when.Before(a.after) {
		return false, fmt.Sprintf("%s lists the key as valid only after %s, and it signed at %s", where, a.after.Format(time.RFC3339), when.Format(time.RFC3339))
	}
	if !a.before.IsZero() && !when.Before(a.before) {
		return false, fmt.Sprintf("%s lists the key as valid only before %s, and it signed at %s", where, a.before.Format(time.RFC3339), when.Format(time.RFC3339))
	}
	return true, ""
}

// anyMatch reports whether a pattern (ssh's: * and ? wildcards) matches s.
func anyMatch(patterns []string, s string) bool {
	for _, p := range patterns {
		if wildcard(strings.TrimSpace(p), s) {
			return true
		}
	}
	return false
}

func wildcard(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if wildcard(p[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			p, s = p[1:], s[1:]
		default:
			if s == "" || p[0] != s[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}

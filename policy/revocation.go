package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// Revocation lists: [revocation] files and urls name lists of [[revoked]]
// entries, each a source pattern (as [sources] reads them, optionally
// pinned to a commit) with its reason, issuer and date. A source one
// matches is refused as a denied one is: not installed, updated, synced,
// granted or run, with the entry's reason and issuer in the refusal.
//
// Lists named by URL are read here from a cache (RevocationCacheFile)
// that the command layer refreshes over https when it is older than
// [revocation] ttl; offline, the cache is used as it is. A list that
// cannot be read (a missing file, a URL never fetched, a bad entry) fails
// as [revocation] on_error says: "closed" (the default) refuses every
// source, since what is revoked cannot be told; "open" ignores the list
// and says so.

// DefaultRevocationTTL is how long a list fetched from a URL is used
// before it is fetched again, unless [revocation] ttl says otherwise.
const DefaultRevocationTTL = time.Hour

// MaxRevocationList bounds how much of a revocation list is read.
const MaxRevocationList = 4 << 20

// revocationRules is a layer's [revocation] table as written.
type revocationRules struct {
	Files   []string `toml:"files"`
	URLs    []string `toml:"urls"`
	TTL     string   `toml:"ttl"`
	OnError string   `toml:"on_error"`
}

// Revocation is one [[revoked]] entry.
type Revocation struct {
	// Source is the pattern as written; Commit, when set, the one commit
	// it revokes.
	Source string
	Commit string
	Reason string
	Issuer string
	Date   string
	// List is the file or URL the entry came from.
	List string

	pat pattern
}

// Text is the entry as a refusal says it.
func (r *Revocation) Text() string {
	s := fmt.Sprintf("revoked by %s", orUnknown(r.Issuer))
	if r.Date != "" {
		s += " on " + r.Date
	}
	return s + ": " + orUnknown(r.Reason)
}

func orUnknown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(not given)"
	}
	return s
}

// revocationList is what a layer's [revocation] names, as read.
type revocationList struct {
	files, urls []string
	ttl         time.Duration
	open        bool // on_error = "open"
}

func (l *Layer) loadRevocation(r *revocationRules) error {
	if r == nil {
		return nil
	}
	rl := &revocationList{ttl: DefaultRevocationTTL}
	for _, f := range r.Files {
		if !filepath.IsAbs(f) {
			return fmt.Errorf("%s: %q is not an absolute path (a relative one would depend on where fledge runs)", l.Rule("revocation", "files"), f)
		}
		rl.files = append(rl.files, f)
	}
	for _, u := range r.URLs {
		if !strings.HasPrefix(u, "https://") {
			return fmt.Errorf("%s: %q is not an https:// URL (a list fetched in the clear could be swapped on the way)", l.Rule("revocation", "urls"), u)
		}
		rl.urls = append(rl.urls, u)
	}
	if r.TTL != "" {
		d, err := ParseAge(r.TTL)
		if err != nil {
			return fmt.Errorf("%s = %q: %w", l.Rule("revocation", "ttl"), r.TTL, err)
		}
		rl.ttl = d
	}
	switch r.OnError {
	case "", "closed":
	case "open":
		rl.open = true
	default:
		return fmt.Errorf("%s = %q: want \"closed\" (refuse every source while a list cannot be read) or \"open\" (ignore that list)", l.Rule("revocation", "on_error"), r.OnError)
	}
	l.revocation = rl
	return nil
}

// ParseRevocations reads a revocation list's contents; list names it.
func ParseRevocations(list string, data []byte) ([]Revocation, error) {
	var doc struct {
		Revoked []struct {
			Source string `toml:"source"`
			Commit string `toml:"commit"`
			Reason string `toml:"reason"`
			Issuer string `toml:"issuer"`
			Date   string `toml:"date"`
		} `toml:"revoked"`
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("revocation list %s: %s", list, decodeProblem(err, nil))
	}
	out := make([]Revocation, 0, len(doc.Revoked))
	for i, e := range doc.Revoked {
		src := e.Source
		if e.Commit != "" {
			if strings.Contains(src[strings.LastIndexByte(src, '/')+1:], "@") {
				return nil, fmt.Errorf("revocation list %s: entry %d pins a commit in source and in commit: name it once", list, i+1)
			}
			src += "@" + e.Commit
		}
		p, err := parsePattern(src)
		if err != nil {
			return nil, fmt.Errorf("revocation list %s: entry %d: source: %w", list, i+1, err)
		}
		if e.Date != "" {
			if _, err := time.Parse(time.DateOnly, e.Date); err != nil {
				if _, err := time.Parse(time.RFC3339, e.Date); err != nil {
					return nil, fmt.Errorf("revocation list %s: entry %d: date %q: want YYYY-MM-DD or an RFC 3339 time", list, i+1, e.Date)
				}
			}
		}
		out = append(out, Revocation{Source: e.Source, Commit: p.commit, Reason: e.Reason, Issuer: e.Issuer, Date: e.Date, List: list, pat: p})
	}
	return out, nil
}

// RevocationCacheFile is where the list at url is cached under dir.
func RevocationCacheFile(dir, url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(dir, "revocation-"+hex.EncodeToString(sum[:12])+".toml")
}

// RevocationURL is one list a policy names by URL, with how long its
// cache is fresh.
type RevocationURL struct {
	URL string
	TTL time.Duration
}

// RevocationURLs lists the lists the policy names by URL (each once, the
// shortest TTL of the layers naming it), for the command layer to
// refresh.
func (s *Set) RevocationURLs() []RevocationURL {
	var out []RevocationURL
	seen := map[string]int{}
	for _, l := range s.Layers() {
		if l.revocation == nil {
			continue
		}
		for _, u := range l.revocation.urls {
			if i, ok := seen[u]; ok {
				out[i].TTL = min(out[i].TTL, l.revocation.ttl)
				continue
			}
			seen[u] = len(out)
			out = append(out, RevocationURL{URL: u, TTL: l.revocation.ttl})
		}
	}
	return out
}

// RevocationSource is one list a layer names, for `fledge plugins
// policy`: its file or URL, the ttl of a URL's cache, on_error, and the
// rule that names it.
type RevocationSource struct {
	List    string
	URL     bool
	TTL     time.Duration
	OnError string
	Origin  Origin
}

// RevocationSources lists every list the layers name, system first.
func (s *Set) RevocationSources() []RevocationSource {
	var out []RevocationSource
	for _, l := range s.Layers() {
		rl := l.revocation
		if rl == nil {
			continue
		}
		onError := "closed"
		if rl.open {
			onError = "open"
		}
		for _, f := range rl.files {
			out = append(out, RevocationSource{List: f, OnError: onError, Origin: Origin{l.Where(), l.Rule("revocation", "files")}})
		}
		for _, u := range rl.urls {
			out = append(out, RevocationSource{List: u, URL: true, TTL: rl.ttl, OnError: onError, Origin: Origin{l.Where(), l.Rule("revocation", "urls")}})
		}
	}
	return out
}

// Revocations lists the entries read from every list.
func (s *Set) Revocations() []Revocation {
	if s == nil {
		return nil
	}
	return s.revoked
}

// HasRevocation reports whether any layer names a revocation list.
func (s *Set) HasRevocation() bool {
	for _, l := range s.Layers() {
		if l.revocation != nil && len(l.revocation.files)+len(l.revocation.urls) > 0 {
			return true
		}
	}
	return false
}

// loadRevocations reads every list the layers name: files as they are,
// URLs from their cache under cacheDir. A list that cannot be read is
// kept as the error its layer's on_error decides on.
func (s *Set) loadRevocations(cacheDir string) {
	for _, l := range s.layers {
		rl := l.revocation
		if rl == nil {
			continue
		}
		read := func(list, path string, missing string) {
			data, err := bounded.ReadFile(path, MaxRevocationList)
			if errors.Is(err, os.ErrNotExist) {
				err = errors.New(missing)
			}
			var entries []Revocation
			if err == nil {
				entries, err = ParseRevocations(list, data)
			} else {
				err = fmt.Errorf("revocation list %s: %w", list, err)
			}
			if err != nil {
				s.revocationErrs = append(s.revocationErrs, RevocationError{Layer: l, Err: err, Open: rl.open})
				return
			}
			s.revoked = append(s.revoked, entries...)
		}
		for _, f := range rl.files {
			read(f, f, "it does not exist")
		}
		for _, u := range rl.urls {
			if cacheDir == "" {
				read(u, "", "it has not been fetched")
				continue
			}
			read(u, RevocationCacheFile(cacheDir, u), "it has not been fetched yet (fledge plugins policy fetches it)")
		}
	}
}

// RevocationError is a list that cannot be read.
type RevocationError struct {
	Layer *Layer
	Err   error
	// Open is on_error = "open": the list is ignored.
	Open bool
}

// RevocationErrors lists the lists that cannot be read.
func (s *Set) RevocationErrors() []RevocationError {
	if s == nil {
		return nil
	}
	return s.revocationErrs
}

// Revoked returns the first entry that revokes src, or nil. src is judged
// as CheckSource judges it (by every identity; a pending source's commit
// is not known, so only entries without a commit revoke it yet).
func (s *Set) Revoked(src Source) *Revocation {
	if s == nil || len(s.revoked) == 0 {
		return nil
	}
	ids, err := src.identities()
	if err != nil {
		return nil
	}
	for i := range s.revoked {
		for _, id := range ids {
			if s.revoked[i].pat.matches(id, false) {
				return &s.revoked[i]
			}
		}
	}
	return nil
}

// checkRevoked is CheckSource's revocation step: an entry that revokes
// src, or a list that cannot be read under on_error = "closed".
func (s *Set) checkRevoked(src Source) *Denial {
	for _, e := range s.RevocationErrors() {
		if !e.Open {
			return &Denial{Item: "source", Rule: e.Layer.Rule("revocation", "on_error"), File: e.Layer.Where(),
				Reason: fmt.Sprintf("is \"closed\" (the default), and %v: what is revoked cannot be told, so nothing is installed, updated or run until it can be read", e.Err)}
		}
	}
	if r := s.Revoked(src); r != nil {
		return &Denial{Item: "source", Rule: "[[revoked]] " + fmt.Sprintf("%q", r.pat.text), File: r.List,
			Reason: fmt.Sprintf("matches %s: %s", describe(src), r.Text())}
	}
	return nil
}

package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/corvidlabs/fledge-go/repourl"
)

// Source is where a plugin comes from, as the source rules see it. Each
// non-empty field is one identity; allow rules pass a source when any of its
// identities matches, deny rules refuse it when any does.
type Source struct {
	// URL is the git URL fetched (https, ssh, git, scp-like or file).
	URL string
	// Path is a local plugin's directory; rules see its real path.
	Path string
	// Registry is the registry name the plugin was installed by.
	Registry string
	// OCI is an OCI registry repository, HOST[:PORT]/REPO.
	OCI string
	// Commit is the exact commit the source is (installed, or about to
	// be fetched); a rule pinned to a commit (pattern@<commit>) matches
	// only a source of that commit.
	Commit string
	// Pending says Commit is not known yet: before any ref is listed, a
	// source is judged by its repository alone, and an allow rule pinned
	// to a commit of it passes it until the commit is known (callers then
	// check again, with Commit set); a deny rule pinned to a commit
	// refuses only once it is known.
	Pending bool
}

// pattern is one source rule: a host/owner/repo glob, a local path glob or
// a registry name glob. Segments match with path.Match, case-insensitively;
// "**" matches any number of segments.
type pattern struct {
	text string // as written
	kind string // "git", "file" or "registry"
	segs []string
	port string // a git pattern's port; "" matches any
	// commit, when set, is the one commit (lower-case hex) the pattern
	// matches of what it names.
	commit string
}

// parsePattern reads a source rule. Git and file:// patterns are read by
// package repourl, which reads sources too, so a rule matches every
// spelling of what it names:
//
//	github.com/my-org/*            a repository of my-org on github.com
//	127.0.0.1:8080/evil/*          one port of a host (without a port: any)
//	https://git.example.com/**     anything on that host (scheme, user and default port are ignored)
//	git@github.com:my-org/*        scp-like spelling of the same
//	file:///srv/plugins/*          a local directory (or file:// git repository) there
//	/srv/plugins/*                 the same
//	registry:figma                 a plugin installed by that registry name
//	oci://ghcr.io/my-org/*         an artifact in a repository of that OCI registry
//	github.com/acme/x@<commit>     that repository at that commit only (40 or 64 hex)
//
// A pattern naming a plugin by its name alone ("figma",
// "fledge-plugin-x") or a GitHub owner/repo without its host
// ("acme/fledge-plugin-x", which reads as the host "acme") is refused as
// ambiguous: a name is anyone's to publish under, and a rule must say
// which repository it trusts.
func parsePattern(raw string) (pattern, error) {
	p := pattern{text: raw}
	s := strings.TrimSpace(raw)
	if !strings.HasPrefix(s, "registry:") {
		var err error
		if s, p.commit, err = cutCommit(raw, s); err != nil {
			return p, err
		}
	}
	switch {
	case s == "":
		return p, fmt.Errorf("an empty pattern")
	case strings.HasPrefix(s, "registry:"):
		p.kind, p.segs = "registry", []string{strings.ToLower(strings.TrimPrefix(s, "registry:"))}
		if p.segs[0] == "" {
			return p, fmt.Errorf("%q names no registry name", raw)
		}
	case strings.HasPrefix(strings.ToLower(s), "oci://"):
		p.kind, p.segs = "oci", ociSegs(s[len("oci://"):])
		if len(p.segs) < 2 {
			return p, fmt.Errorf("%q names no repository: write oci://HOST[:PORT]/REPO (globs allowed)", raw)
		}
	case strings.HasPrefix(strings.ToLower(s), "file://"):
		r, err := repourl.ParsePattern(s)
		if err != nil {
			return p, fmt.Errorf("file pattern: %w", err)
		}
		p.kind, p.segs = "file", pathSegs(r.Path)
	case strings.HasPrefix(s, "/") || isWindowsPath(s):
		p.kind, p.segs = "file", pathSegs(repourl.RealPattern(s))
	default:
		r, err := repourl.ParsePattern(s)
		if err != nil {
			return p, fmt.Errorf("%q is not a host/owner/repo pattern, a file:// path or registry:NAME: %w", raw, err)
		}
		if err := nameOnly(raw, s, r); err != nil {
			return p, err
		}
		p.kind, p.segs, p.port = "git", gitSegs(r), r.Port
	}
	for _, seg := range p.segs {
		if _, err := path.Match(seg, ""); err != nil {
			return p, fmt.Errorf("%q: bad glob %q", raw, seg)
		}
	}
	return p, nil
}

// cutCommit splits a pattern's "@<commit>" pin off: an '@' after the last
// '/' (an scp-like user@ comes before the path). Anything but a full
// commit hash there is refused: a tag or branch moves, so a rule cannot
// pin one.
func cutCommit(raw, s string) (rest, commit string, err error) {
	at := strings.LastIndexByte(s, '@')
	if at < 0 || at < strings.LastIndexByte(s, '/') {
		return s, "", nil
	}
	rest, commit = s[:at], strings.ToLower(s[at+1:])
	if (len(commit) != 40 && len(commit) != 64) || strings.Trim(commit, "0123456789abcdef") != "" {
		return "", "", fmt.Errorf("%q pins %q: a source rule pins only a full commit hash (40 hex digits), since a tag or branch can be moved; write pattern@<commit>, or leave the pin off", raw, s[at+1:])
	}
	if strings.ContainsAny(rest, "*?[") {
		return "", "", fmt.Errorf("%q pins a commit of a glob: a commit is one repository's; name the repository without wildcards", raw)
	}
	return rest, commit, nil
}

// nameOnly refuses a git pattern that names no host: a plugin's name
// alone, or owner/repo, which the URL parser reads as a host "owner".
// A host is written with a dot ("github.com"), as localhost, as an IP
// address, with a port, or after a scheme.
func nameOnly(raw, s string, r repourl.Repo) error {
	if strings.Contains(s, "://") || strings.ContainsAny(r.Host, ".:*") || r.Host == "localhost" || r.Port != "" {
		return nil
	}
	if len(r.Segments()) == 0 {
		return fmt.Errorf("%q names a plugin by its name alone, which is ambiguous (anyone can publish a plugin of that name): name its repository, e.g. github.com/OWNER/%s, or registry:%s for the registry's entry", raw, s, s)
	}
	return fmt.Errorf("%q names no host, so %q would be read as one: write the repository in full, e.g. github.com/%s", raw, r.Host, strings.TrimPrefix(s, "/"))
}

func isWindowsPath(s string) bool {
	return len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/') && (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z')
}

// pathSegs splits a local path into lower-cased segments, forward slashes,
// without empty ones.
func pathSegs(p string) []string {
	var out []string
	// Paths compare case-insensitively: on macOS and Windows the same
	// directory has many spellings, and a deny rule must catch them all.
	for _, s := range strings.Split(strings.ToLower(filepath.ToSlash(p)), "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// gitSegs is what a git rule sees of a repository: its host and path
// segments, lower-cased.
func gitSegs(r repourl.Repo) []string {
	segs := append([]string{r.Host}, r.Segments()...)
	for i, s := range segs {
		segs[i] = strings.ToLower(s)
	}
	return segs
}

// identities lists what the source rules see of s: a git URL's identity
// as package repourl reads it (a file:// one's real path), a local path's
// real path, the registry name. err says why a URL cannot be read; such a
// source passes no source rule.
func (s Source) identities() ([]identity, error) {
	var out []identity
	if s.URL != "" {
		r, err := repourl.Parse(s.URL)
		if err != nil {
			return nil, err
		}
		if r.IsFile() {
			out = append(out, identity{kind: "file", segs: pathSegs(r.Path)})
		} else {
			out = append(out, identity{kind: "git", segs: gitSegs(r), port: r.EffectivePort()})
		}
	}
	if s.Path != "" {
		out = append(out, identity{kind: "file", segs: pathSegs(repourl.RealPath(s.Path))})
	}
	if s.Registry != "" {
		out = append(out, identity{kind: "registry", segs: []string{strings.ToLower(s.Registry)}})
	}
	if s.OCI != "" {
		out = append(out, identity{kind: "oci", segs: ociSegs(s.OCI)})
	}
	for i := range out {
		out[i].commit, out[i].pending = strings.ToLower(s.Commit), s.Pending
	}
	return out, nil
}

// ociSegs is what an OCI rule sees of HOST[:PORT]/REPO: the registry
// (with its port, which OCI names a registry by) and the repository's
// parts, lower-cased.
func ociSegs(s string) []string {
	var out []string
	for _, seg := range strings.Split(strings.ToLower(s), "/") {
		if seg != "" {
			out = append(out, seg)
		}
	}
	return out
}

type identity struct {
	kind string
	segs []string
	port string // the port a git source is fetched from
	// commit and pending are Source's.
	commit  string
	pending bool
}

// String shows a source for messages.
func (s Source) String() string {
	var parts []string
	if s.URL != "" {
		parts = append(parts, s.URL)
	}
	if s.Path != "" {
		parts = append(parts, s.Path)
	}
	if s.Registry != "" {
		parts = append(parts, "registry:"+s.Registry)
	}
	if s.OCI != "" {
		parts = append(parts, "oci://"+s.OCI)
	}
	if s.Commit != "" && len(parts) > 0 {
		parts = append(parts, "at commit "+s.Commit)
	}
	return strings.Join(parts, " ")
}

// matches reports whether p names id. A commit-pinned pattern matches a
// pending identity (commit not known yet) only when pending says so: an
// allow rule lets it on to be checked again, a deny rule waits.
func (p pattern) matches(id identity, pending bool) bool {
	if p.kind != id.kind || (p.port != "" && p.port != id.port) || !matchSegs(p.segs, id.segs) {
		return false
	}
	if p.commit == "" {
		return true
	}
	if id.pending {
		return pending
	}
	return id.commit == p.commit
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := len(segs); i >= 0; i-- {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

func anyMatch(ps []pattern, ids []identity, pending bool) (pattern, bool) {
	for _, p := range ps {
		for _, id := range ids {
			if p.matches(id, pending) {
				return p, true
			}
		}
	}
	return pattern{}, false
}

// RecordedSource is what the source rules see of an installed plugin's
// record: the URL it was fetched from, or for a record without one (the
// Rust fledge wrote none) its source, where owner/repo meant github.com; a
// local plugin's directory; the registry name it was installed by.
func RecordedSource(local bool, fetchedURL, source, registryName string) Source {
	s := Source{Registry: registryName}
	switch {
	case len(fetchedURL) > len("oci://") && strings.EqualFold(fetchedURL[:len("oci://")], "oci://"):
		s.OCI = fetchedURL[len("oci://"):]
	case local || filepath.IsAbs(source) || strings.HasPrefix(source, "./") || strings.HasPrefix(source, "../"):
		if local || fetchedURL == "" {
			s.Path = source
			return s
		}
		s.URL = fetchedURL
	case fetchedURL != "":
		s.URL = fetchedURL
	case strings.Count(source, "/") == 1 && !strings.Contains(source, ":"):
		s.URL = "https://github.com/" + source
	default:
		s.URL = source
	}
	return s
}

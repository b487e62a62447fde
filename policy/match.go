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
}

// pattern is one source rule: a host/owner/repo glob, a local path glob or
// a registry name glob. Segments match with path.Match, case-insensitively;
// "**" matches any number of segments.
type pattern struct {
	text string // as written
	kind string // "git", "file" or "registry"
	segs []string
	port string // a git pattern's port; "" matches any
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
func parsePattern(raw string) (pattern, error) {
	p := pattern{text: raw}
	s := strings.TrimSpace(raw)
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
		p.kind, p.segs, p.port = "git", gitSegs(r), r.Port
	}
	for _, seg := range p.segs {
		if _, err := path.Match(seg, ""); err != nil {
			return p, fmt.Errorf("%q: bad glob %q", raw, seg)
		}
	}
	return p, nil
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
	return strings.Join(parts, " ")
}

func (p pattern) matches(id identity) bool {
	return p.kind == id.kind && (p.port == "" || p.port == id.port) && matchSegs(p.segs, id.segs)
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

func anyMatch(ps []pattern, ids []identity) (pattern, bool) {
	for _, p := range ps {
		for _, id := range ids {
			if p.matches(id) {
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

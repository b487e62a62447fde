package policy

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Source is where a plugin comes from, as the source rules see it. Each
// non-empty field is one identity; allow rules pass a source when any of its
// identities matches, deny rules refuse it when any does.
type Source struct {
	// URL is the git URL fetched (https, ssh, git, scp-like or file).
	URL string
	// Path is a local plugin's directory, symlinks resolved.
	Path string
	// Registry is the registry name the plugin was installed by.
	Registry string
}

// pattern is one source rule: a host/owner/repo glob, a local path glob or
// a registry name glob. Segments match with path.Match, case-insensitively;
// "**" matches any number of segments.
type pattern struct {
	text string // as written
	kind string // "git", "file" or "registry"
	segs []string
}

// parsePattern reads a source rule:
//
//	github.com/my-org/*            a repository of my-org on github.com
//	https://git.example.com/**     anything on that host (scheme, user and port are ignored)
//	git@github.com:my-org/*        scp-like spelling of the same
//	file:///srv/plugins/*          a local directory (or file:// git repository) there
//	/srv/plugins/*                 the same
//	registry:figma                 a plugin installed by that registry name
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
	case strings.HasPrefix(s, "file://") || strings.HasPrefix(s, "/") || isWindowsPath(s):
		p.kind, p.segs = "file", pathSegs(strings.TrimPrefix(s, "file://"))
	default:
		id, ok := gitIdentity(s)
		if !ok {
			return p, fmt.Errorf("%q is not a host/owner/repo pattern, a file:// path or registry:NAME", raw)
		}
		p.kind, p.segs = "git", strings.Split(strings.ToLower(id), "/")
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
// without the empty leading one.
func pathSegs(p string) []string {
	p = filepath.ToSlash(p)
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	// Paths compare case-insensitively: on macOS and Windows the same
	// directory has many spellings, and a deny rule must catch them all.
	return strings.Split(strings.ToLower(p), "/")
}

// scpLike is compiled on first use: commands that never look at a policy
// pay nothing at start-up.
var scpLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[A-Za-z0-9_.-]+@)?([A-Za-z0-9.-]+):(.+)$`)
})

// gitIdentity turns a git URL (or a pattern spelt as one) into
// "host/path": the host lower-cased, without scheme, credentials, port, a
// trailing slash or ".git". ok is false for file:// URLs and what is not a
// URL at all.
func gitIdentity(s string) (string, bool) {
	var host, p string
	switch {
	case strings.Contains(s, "://"):
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "file" || u.Host == "" {
			return "", false
		}
		host, p = u.Hostname(), u.Path
	case scpLike().MatchString(s) && !strings.Contains(strings.SplitN(s, ":", 2)[0], "/"):
		m := scpLike().FindStringSubmatch(s)
		host, p = m[1], m[2]
	default:
		host, p, _ = strings.Cut(s, "/")
		if !strings.Contains(s, "/") {
			p = ""
		}
	}
	if host == "" {
		return "", false
	}
	p = strings.Trim(p, "/")
	p = strings.TrimSuffix(p, ".git")
	if p == "" {
		return strings.ToLower(host), true
	}
	return strings.ToLower(host) + "/" + p, true
}

// identities lists what the source rules see of s.
func (s Source) identities() []identity {
	var out []identity
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err == nil && u.Scheme == "file" {
			out = append(out, identity{"file", pathSegs(u.Path)})
		} else if id, ok := gitIdentity(s.URL); ok {
			out = append(out, identity{"git", strings.Split(strings.ToLower(id), "/")})
		}
	}
	if s.Path != "" {
		out = append(out, identity{"file", pathSegs(s.Path)})
	}
	if s.Registry != "" {
		out = append(out, identity{"registry", []string{strings.ToLower(s.Registry)}})
	}
	return out
}

type identity struct {
	kind string
	segs []string
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
	return strings.Join(parts, " ")
}

func (p pattern) matches(id identity) bool {
	return p.kind == id.kind && matchSegs(p.segs, id.segs)
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

package repourl

import (
	"fmt"
	"strings"
)

// Repo is a parsed repository URL in canonical form.
type Repo struct {
	// Scheme is the transport: https, http, ssh (also for scp-like
	// user@host:path), git or file. It is not part of the identity.
	Scheme string
	// Host is the lower-case host name or IP address, an IPv6 address
	// without brackets; empty for file.
	Host string
	// Port is the port written in the URL, without leading zeros; empty
	// when none was written or it is the scheme's default.
	Port string
	// Path is the canonical repository path: for a network URL its
	// segments joined by '/', without a leading or trailing slash or a
	// trailing ".git"; for file:// the real absolute path, with forward
	// slashes.
	Path string
	// Name is the repository's name as written: the last path segment
	// (after empty and dot segments are resolved), case kept, without
	// ".git". Not part of the identity.
	Name string
}

// defaultPorts are the ports each scheme uses when none is written.
var defaultPorts = map[string]string{"https": "443", "http": "80", "ssh": "22", "git": "9418"}

// IsFile reports whether r is a file:// repository.
func (r Repo) IsFile() bool { return r.Scheme == "file" }

// EffectivePort is the port the transport connects to: Port, or the
// scheme's default. It is empty for file.
func (r Repo) EffectivePort() string {
	if r.Port != "" {
		return r.Port
	}
	return defaultPorts[r.Scheme]
}

// ID is the repository's identity: host[:port]/path, or file:// and the
// real path. Two URLs name the same repository exactly when their IDs are
// equal.
func (r Repo) ID() string {
	if r.IsFile() {
		if strings.HasPrefix(r.Path, "/") {
			return "file://" + r.Path
		}
		return "file:///" + r.Path // a Windows drive path
	}
	host := r.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if r.Port != "" {
		host += ":" + r.Port
	}
	return host + "/" + r.Path
}

// String is ID.
func (r Repo) String() string { return r.ID() }

// Segments is the canonical path split at '/', without empty segments.
func (r Repo) Segments() []string {
	if strings.Trim(r.Path, "/") == "" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(r.Path, "/"), "/")
}

// Same reports whether a and b are URLs of one repository; an URL that
// does not parse is the same as nothing.
func Same(a, b string) bool {
	ra, errA := Parse(a)
	rb, errB := Parse(b)
	return errA == nil && errB == nil && ra.ID() == rb.ID()
}

// Parse reads a repository URL: scheme://[user@]host[:port]/path for
// https, http, ssh, git and file, or scp-like [user@]host:path (as git
// reads a URL with a ':' before any '/'). A file:// URL's identity is its
// real path, so Parse reads the file system for those. See the package
// documentation for what is canonicalised and what is refused.
func Parse(raw string) (Repo, error) {
	return parse(raw, false)
}

// ParsePattern reads an admin policy's git source rule: a URL as Parse
// reads it, or host[:port]/path without a scheme (host:path with a user,
// or with anything but a port before the first '/', is scp-like, as in
// git). Glob characters (*, ?, [, ]) are allowed in the host and path, the
// path may be empty, and a port is kept even when it is a default (a
// pattern without a scheme has none). A file:// pattern's literal prefix
// (before the first glob) is resolved to its real path.
func ParsePattern(raw string) (Repo, error) {
	return parse(raw, true)
}

// parts is a URL split, before its pieces are canonicalised.
type parts struct {
	scheme   string // lower-case; "ssh" for scp-like
	scp      bool
	bare     bool // a pattern's host[:port]/path
	hasUser  bool
	user     string
	hasPass  bool
	host     string // as written, brackets removed
	brackets bool
	hasPort  bool
	port     string // as written
	path     string // as written
}

func parse(raw string, pattern bool) (Repo, error) {
	p, err := split(raw, pattern)
	if err != nil {
		return Repo{}, err
	}
	r := Repo{Scheme: p.scheme}
	if p.scheme == "file" {
		r.Path, r.Name, err = filePath(raw, p.path, pattern)
		return r, err
	}
	if r.Host, err = canonicalHost(raw, p.host, p.brackets, pattern); err != nil {
		return Repo{}, err
	}
	if r.Port, err = canonicalPort(raw, p, pattern); err != nil {
		return Repo{}, err
	}
	if r.Path, err = canonicalPath(raw, p.scheme, p.path, pattern); err != nil {
		return Repo{}, err
	}
	r.Name = r.Path[strings.LastIndexByte(r.Path, '/')+1:]
	if r.Host == "github.com" {
		r.Path = strings.ToLower(r.Path)
	}
	return r, nil
}

// split cuts raw into scheme, user, host, port and path, refusing what no
// spelling may hold.
func split(raw string, pattern bool) (parts, error) {
	var p parts
	if raw == "" {
		return p, fmt.Errorf("an empty URL names no repository")
	}
	for _, c := range raw {
		switch {
		case c < 0x20 || c == 0x7f:
			return p, fmt.Errorf("%q holds a control character", raw)
		case c == ' ' || c == '\t':
			return p, fmt.Errorf("%q holds a space: git URLs have none (a repository name with one is percent-encoded as %%20, which fledge refuses)", raw)
		case c == '\\':
			return p, fmt.Errorf("%q holds a backslash: write paths in URLs with '/'", raw)
		case c == '#':
			return p, fmt.Errorf("%q holds '#': a URL fragment names no repository", raw)
		case c == '?' && !pattern:
			return p, fmt.Errorf("%q holds '?': a query names no repository", raw)
		}
	}
	if helper, ok := TransportHelper(raw); ok {
		return p, fmt.Errorf("%q uses a git transport helper (%s::), which fledge refuses", raw, helper)
	}
	if i := strings.Index(raw, "://"); i > 0 && !strings.ContainsAny(raw[:i], "/@:") {
		p.scheme = strings.ToLower(raw[:i])
		switch p.scheme {
		case "https", "http", "ssh", "git", "file":
		default:
			return p, fmt.Errorf("%q uses the %s:// transport: use https://, ssh://, git:// or file://", raw, p.scheme)
		}
		rest := raw[i+3:]
		authority, path := rest, ""
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			authority, path = rest[:j], rest[j:]
		}
		if p.scheme == "file" {
			if authority != "" && !strings.EqualFold(authority, "localhost") {
				return p, fmt.Errorf("%q: a file:// URL names a local path (file:///abs/path), not host %q", raw, authority)
			}
			p.path = path
			return p, nil
		}
		if err := p.authority(raw, authority, pattern); err != nil {
			return p, err
		}
		p.path = path
		return p, nil
	}
	// No scheme: scp-like [user@]host:path when a ':' comes before any '/'
	// (git's rule), or for a pattern host[:port]/path.
	colon, slash := strings.IndexByte(raw, ':'), strings.IndexByte(raw, '/')
	if pattern && (colon < 0 || (slash >= 0 && slash < colon) || portThenPath(raw[colon+1:]) && !strings.Contains(raw[:colon], "@")) {
		p.scheme, p.bare = "", true
		authority, path := raw, ""
		if slash >= 0 {
			authority, path = raw[:slash], raw[slash:]
		}
		if strings.Contains(authority, "@") {
			return p, fmt.Errorf("%q: a pattern without a scheme is host/path; write a user only in a URL (ssh://git@host/path) or scp-like (git@host:path)", raw)
		}
		if err := p.authority(raw, authority, pattern); err != nil {
			return p, err
		}
		p.path = path
		return p, nil
	}
	if colon <= 0 || (slash >= 0 && slash < colon) {
		return p, fmt.Errorf("%q is not a git URL: use https://host/owner/repo, ssh://host/path, git@host:path or file:///path", raw)
	}
	p.scheme, p.scp = "ssh", true
	hostPart := raw[:colon]
	if at := strings.IndexByte(hostPart, '@'); at >= 0 {
		if strings.Count(hostPart, "@") > 1 {
			return p, fmt.Errorf("%q has more than one '@' before the host", raw)
		}
		p.hasUser, p.user, hostPart = true, hostPart[:at], hostPart[at+1:]
	}
	if strings.ContainsAny(hostPart, "[]") {
		return p, fmt.Errorf("%q: write an IPv6 host as ssh://[address]/path", raw)
	}
	p.host, p.path = hostPart, raw[colon+1:]
	return p, nil
}

// TransportHelper reports whether git reads raw as <helper>::<address>
// ("::" right after the leading run of scheme characters), which runs a
// program named after helper: fledge refuses those.
func TransportHelper(raw string) (string, bool) {
	i := 0
	for i < len(raw) && (raw[i] >= 'a' && raw[i] <= 'z' || raw[i] >= 'A' && raw[i] <= 'Z' || raw[i] >= '0' && raw[i] <= '9' || i > 0 && strings.IndexByte("+.-", raw[i]) >= 0) {
		i++
	}
	return raw[:i], strings.HasPrefix(raw[i:], "::")
}

// portThenPath reports whether s (what follows a pattern's first ':') is a
// port: digits up to the first '/' or the end.
func portThenPath(s string) bool {
	port, _, _ := strings.Cut(s, "/")
	if port == "" {
		return false
	}
	for _, c := range port {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// authority splits [user[:password]@]host[:port].
func (p *parts) authority(raw, a string, pattern bool) error {
	if at := strings.LastIndexByte(a, '@'); at >= 0 {
		if strings.Count(a, "@") > 1 {
			return fmt.Errorf("%q has more than one '@' before the host: percent-encode '@' in a password as %%40", raw)
		}
		p.hasUser = true
		p.user, p.hasPass = a[:at], strings.Contains(a[:at], ":")
		if p.hasPass {
			p.user = a[:strings.IndexByte(a, ':')]
		}
		a = a[at+1:]
	}
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return fmt.Errorf("%q: an IPv6 host lacks its closing ']'", raw)
		}
		p.host, p.brackets = a[1:end], true
		a = a[end+1:]
		if a != "" && !strings.HasPrefix(a, ":") {
			return fmt.Errorf("%q: only a :port may follow an IPv6 host", raw)
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		p.host, a = a[:i], a[i:]
	} else {
		p.host, a = a, ""
	}
	if a != "" {
		p.hasPort, p.port = true, a[1:]
	}
	if strings.ContainsAny(p.host, "[]") && !pattern {
		return fmt.Errorf("%q: a host holds '[' or ']'", raw)
	}
	return nil
}

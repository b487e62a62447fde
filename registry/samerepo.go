package registry

import (
	"net/url"
	"path"
	"strings"
)

// SameRepository reports whether two git sources name one repository,
// however each is written: https://, ssh://, git:// or git@host:path, with
// or without credentials, a default port, trailing slashes or ".git", in
// any case of scheme and host. Owner and repository names on github.com
// compare case-insensitively, as GitHub treats them. owner/repo shorthand
// is compared as the URL it was parsed into. Anything that cannot be
// parsed is never the same as anything.
func SameRepository(a, b Source) bool {
	ka, okA := repoKey(a)
	kb, okB := repoKey(b)
	return okA && okB && ka == kb
}

// repoKey is a git source's location with everything that does not change
// which repository it names removed.
func repoKey(s Source) (string, bool) {
	if s.Kind != SourceGit || s.URL == "" {
		return "", false
	}
	var scheme, host, port, p string
	if m := scpRe.FindStringSubmatch(s.URL); m != nil && !strings.Contains(s.URL, "://") {
		scheme, host, p = "ssh", m[2], m[3]
	} else {
		u, err := url.Parse(s.URL)
		if err != nil || u.Opaque != "" || u.RawQuery != "" || u.Fragment != "" {
			return "", false
		}
		scheme, host, port, p = strings.ToLower(u.Scheme), u.Hostname(), u.Port(), u.Path
	}
	if port == map[string]string{"https": "443", "http": "80", "ssh": "22", "git": "9418"}[scheme] {
		port = ""
	}
	host = strings.ToLower(host)
	p = strings.Trim(path.Clean("/"+p), "/")
	p = strings.TrimSuffix(p, ".git")
	if p == "" {
		return "", false
	}
	if scheme == "file" {
		return "file:/" + p, true
	}
	if host == "" {
		return "", false
	}
	if host == "github.com" {
		p = strings.ToLower(p)
	}
	if port != "" {
		host += ":" + port
	}
	return host + "/" + p, true
}

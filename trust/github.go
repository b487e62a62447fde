package trust

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// githubOwner returns the owner of a github.com repository URL, or false
// when the URL is anything else or anything about it is unusual.
//
// It is registry's reading, moved here unchanged with the two patterns it
// needs; the canonical git-URL parser (package repourl) replaces it.
func githubOwner(raw string) (string, bool) {
	if strings.ContainsAny(raw, "%\\ \t") {
		return "", false
	}
	var host, path string
	if m := scpRe().FindStringSubmatch(raw); m != nil && !strings.Contains(raw, "://") {
		if m[1] != "git" {
			return "", false
		}
		host, path = m[2], m[3]
	} else {
		u, err := url.Parse(raw)
		if err != nil || u.Opaque != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
			return "", false
		}
		switch u.Scheme {
		case "https":
			if u.User != nil {
				return "", false
			}
		case "ssh":
			if u.User == nil || u.User.Username() != "git" {
				return "", false
			}
			if _, hasPw := u.User.Password(); hasPw {
				return "", false
			}
		default:
			return "", false
		}
		if p := u.Port(); p != "" && !(u.Scheme == "ssh" && p == "22") && !(u.Scheme == "https" && p == "443") {
			return "", false
		}
		host, path = u.Hostname(), u.Path
		if u.RawPath != "" {
			return "", false
		}
	}
	if !strings.EqualFold(host, "github.com") {
		return "", false
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(segs) == 3 && segs[2] == "" {
		segs = segs[:2] // a trailing slash
	}
	if len(segs) != 2 {
		return "", false
	}
	owner, repo := segs[0], strings.TrimSuffix(segs[1], ".git")
	if !shorthandRe().MatchString(owner+"/"+repo) || isDots(owner) || isDots(repo) || repo == "" {
		return "", false
	}
	return owner, true
}

// Compiled on first use, not at start-up: most commands never judge a URL.
var (
	shorthandRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*)/([A-Za-z0-9_.][A-Za-z0-9_.-]*)$`)
	})
	scpRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9_.-]+)@([A-Za-z0-9.-]+):(.+)$`) })
)

func isDots(s string) bool { return s == "." || s == ".." }

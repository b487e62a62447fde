package repourl

import "strings"

// GitHubOwner returns the owner of a github.com repository URL, or false
// when the URL is anything else or anything about it is unusual. Only
// https://github.com/owner/repo and ssh as git@ (ssh://git@github.com/...
// or git@github.com:owner/repo) count, with at most a default port, one
// trailing slash and ".git": no other user or credentials, no empty or dot
// segments, no percent-encoding, no other host spelling (not even a
// trailing dot), no query or fragment, not even an empty one. The trust
// tier rests on this answer, so any doubt is "not github".
func GitHubOwner(raw string) (string, bool) {
	if strings.ContainsAny(raw, "%\\ \t") {
		return "", false
	}
	p, err := split(raw, false)
	if err != nil || p.brackets {
		return "", false
	}
	switch {
	case p.scp:
		if p.user != "git" {
			return "", false
		}
		for _, c := range p.host {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
				return "", false
			}
		}
	case p.scheme == "https":
		if p.hasUser {
			return "", false
		}
	case p.scheme == "ssh":
		if !p.hasUser || p.user != "git" || p.hasPass {
			return "", false
		}
	default:
		return "", false
	}
	if p.hasPort && p.port != "" && p.port != defaultPorts[p.scheme] {
		return "", false
	}
	if !strings.EqualFold(p.host, "github.com") {
		return "", false
	}
	segs := strings.Split(strings.TrimPrefix(p.path, "/"), "/")
	if len(segs) == 3 && segs[2] == "" {
		segs = segs[:2] // a trailing slash
	}
	if len(segs) != 2 {
		return "", false
	}
	owner, repo := segs[0], strings.TrimSuffix(segs[1], ".git")
	if !githubName(owner, true) || !githubName(repo, false) || isDots(owner) || isDots(repo) {
		return "", false
	}
	return owner, true
}

// githubName reports whether s is an owner (first character a letter or
// digit) or repository name (also '_' or '.') of the form fledge accepts.
func githubName(s string, owner bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if i == 0 && !alnum && (owner || c != '_' && c != '.') {
			return false
		}
		if !alnum && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isDots(s string) bool { return s == "." || s == ".." }

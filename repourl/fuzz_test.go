package repourl

import (
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"
)

// The three normalisers this package replaced, kept here only to compare
// answers: registry's repoKey (SameRepository), policy's gitIdentity and
// registry's githubOwner (the trust tier), as they were.
var (
	oldScpRe       = regexp.MustCompile(`^([A-Za-z0-9_.-]+)@([A-Za-z0-9.-]+):(.+)$`)
	oldShorthandRe = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*)/([A-Za-z0-9_.][A-Za-z0-9_.-]*)$`)
	oldScpLike     = regexp.MustCompile(`^(?:[A-Za-z0-9_.-]+@)?([A-Za-z0-9.-]+):(.+)$`)
)

func oldRepoKey(raw string) (string, bool) {
	var scheme, host, port, p string
	if m := oldScpRe.FindStringSubmatch(raw); m != nil && !strings.Contains(raw, "://") {
		scheme, host, p = "ssh", m[2], m[3]
	} else {
		u, err := url.Parse(raw)
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

func oldGitIdentity(s string) (string, bool) {
	var host, p string
	switch {
	case strings.Contains(s, "://"):
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "file" || u.Host == "" {
			return "", false
		}
		host, p = u.Hostname(), u.Path
	case oldScpLike.MatchString(s) && !strings.Contains(strings.SplitN(s, ":", 2)[0], "/"):
		m := oldScpLike.FindStringSubmatch(s)
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

func oldGithubOwner(raw string) (string, bool) {
	if strings.ContainsAny(raw, "%\\ \t") {
		return "", false
	}
	var host, p string
	if m := oldScpRe.FindStringSubmatch(raw); m != nil && !strings.Contains(raw, "://") {
		if m[1] != "git" {
			return "", false
		}
		host, p = m[2], m[3]
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
		host, p = u.Hostname(), u.Path
		if u.RawPath != "" {
			return "", false
		}
	}
	if !strings.EqualFold(host, "github.com") {
		return "", false
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(segs) == 3 && segs[2] == "" {
		segs = segs[:2]
	}
	if len(segs) != 2 {
		return "", false
	}
	owner, repo := segs[0], strings.TrimSuffix(segs[1], ".git")
	if !oldShorthandRe.MatchString(owner+"/"+repo) || isDots(owner) || isDots(repo) || repo == "" {
		return "", false
	}
	return owner, true
}

// plain reports whether raw is a spelling the old normalisers read right:
// no percent-encoding (they decoded it, or not, unlike any server), no
// empty or dot path segments (two of them kept those), no host that only
// a resolver equates (a trailing dot, a numeric form), no padded port.
func plain(raw string, r Repo) bool {
	if strings.ContainsAny(raw, "%[]") || r.IsFile() || strings.HasSuffix(raw, ".") {
		return false
	}
	body := raw
	if i := strings.Index(raw, "://"); i >= 0 {
		body = raw[i+3:]
		if j := strings.IndexByte(body, '/'); j >= 0 {
			body = body[j:]
		} else {
			body = ""
		}
	} else if m := oldScpLike.FindStringSubmatch(raw); m != nil {
		body = m[2]
	} else {
		return false
	}
	body = strings.Trim(body, "/")
	for _, s := range strings.Split(body, "/") {
		if s == "" || s == "." || s == ".." || s == ".git" {
			return false
		}
	}
	// A host's trailing dot shows as ".:" or "./"; a padded port as ":0".
	return !strings.Contains(raw, ":0") && !strings.Contains(raw, ".:") && !strings.Contains(raw, "./") && !strings.Contains(raw, "::")
}

// canonicalURL writes r back as a URL.
func canonicalURL(r Repo) string {
	if r.IsFile() {
		return r.ID()
	}
	return r.Scheme + "://" + r.ID()
}

var fuzzSeeds = []string{
	// Real sources from the registry index (../shared/corpus).
	"https://github.com/CorvidLabs/fledge-plugin-standup",
	"https://github.com/CorvidLabs/fledge-plugin-roast",
	"https://github.com/0xLeif/fledge-plugin-aps.git",
	"git@github.com:CorvidLabs/fledge-plugin-github.git",
	"ssh://git@github.com/CorvidLabs/fledge-plugin-deploy",
	// The bypasses and their neighbours.
	"https://github.com/evil//fledge-plugin-x",
	"http://127.0.0.1:8080/evil//fledge-plugin-x",
	"http://127.0.0.1:8080/evil/./x/../fledge-plugin-x.git/",
	"https://github.com/evil%2Ffledge-plugin-x",
	"https://github.com/%65vil/x",
	"https://GitHub.COM.:443/CorvidLabs/x",
	"file:///tmp/work//evil/fledge-plugin-ev",
	"ssh://git@[::1]:2222/o/r",
	"git://host/o/../r",
	"http://2130706433/o/r",
	"https://a@b@host/o/r",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if strings.HasPrefix(strings.ToLower(raw), "file:") {
			// file:// identities read the file system; TestParseFileRealPath
			// covers them against real directories.
			return
		}
		// The trust tier's answer is the old one, never more trusting: where
		// the old reader let an empty query or fragment through ("…/r#",
		// "…/r?"), the new one has a doubt, and doubt is "not github".
		gotOwner, gotOK := GitHubOwner(raw)
		oldOwner, oldOK := oldGithubOwner(raw)
		stricter := oldOK && !gotOK && strings.ContainsAny(raw, "#?")
		if (gotOwner != oldOwner || gotOK != oldOK) && !stricter {
			t.Fatalf("GitHubOwner(%q) = %q, %v; the old one said %q, %v", raw, gotOwner, gotOK, oldOwner, oldOK)
		}
		r, err := Parse(raw)
		if gotOK {
			if err != nil || r.Host != "github.com" || len(r.Segments()) != 2 || !strings.EqualFold(r.Segments()[0], gotOwner) {
				t.Fatalf("GitHubOwner(%q) = %q, but Parse says %q, %v", raw, gotOwner, r.ID(), err)
			}
		}
		if err != nil {
			return
		}
		id := r.ID()
		if strings.Contains(id, "//") || strings.Contains(id, "/./") || strings.Contains(id, "/../") || strings.HasSuffix(id, "/") ||
			strings.HasSuffix(id, ".git") || strings.Contains(id, "%") || strings.ContainsAny(id, "?#\\ ") {
			t.Fatalf("Parse(%q).ID() = %q is not canonical", raw, id)
		}
		if r.Host == "github.com" && r.Path != strings.ToLower(r.Path) {
			t.Fatalf("Parse(%q): github.com path %q keeps its case", raw, r.Path)
		}
		// Idempotent: the canonical URL parses to the same identity.
		again, err := Parse(canonicalURL(r))
		if err != nil || again.ID() != id {
			t.Fatalf("Parse(%q) = %q, but its canonical URL %q gives %q, %v", raw, id, canonicalURL(r), again.ID(), err)
		}
		// Spellings that differ only in what is canonicalised have one
		// identity.
		host := r.Host
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		hostPort := host
		if r.Port != "" {
			hostPort += ":" + r.Port
		}
		p := r.Path
		segs := r.Segments()
		for _, v := range []string{
			strings.ToUpper(r.Scheme) + "://" + strings.ToUpper(hostPort) + "/" + p + ".git/",
			r.Scheme + "://user:pw@" + hostPort + "//" + strings.Join(segs, "//") + "/",
			r.Scheme + "://" + hostPort + "/./" + strings.Join(segs, "/./"),
			r.Scheme + "://" + host + ":" + r.EffectivePort() + "/" + p,
			r.Scheme + "://" + hostPort + "/" + strings.ReplaceAll(p, "-", "%2D"),
		} {
			if strings.Contains(v, "%2D") && strings.Contains(p, "%") {
				continue
			}
			rv, err := Parse(v)
			if err != nil || rv.ID() != id {
				t.Fatalf("%q is %q but its spelling %q is %q, %v", raw, id, v, rv.ID(), err)
			}
		}
		// Where the old normalisers read a plain spelling, they agree.
		if !plain(raw, r) {
			return
		}
		if old, ok := oldRepoKey(raw); ok && old != id {
			t.Fatalf("Parse(%q).ID() = %q; the old repoKey said %q", raw, id, old)
		}
		if old, ok := oldGitIdentity(raw); ok && strings.ToLower(old) != strings.ToLower(r.Host+"/"+r.Path) {
			t.Fatalf("Parse(%q) = %q; the old gitIdentity said %q", raw, r.Host+"/"+r.Path, old)
		}
	})
}

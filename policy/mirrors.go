package policy

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/corvidlabs/fledge-go/repourl"
)

// A mirror rule sends fetches of the sources a pattern matches to a
// mirror, as a policy file's [mirrors] table (or config.toml's
// [policy.mirrors]) writes it:
//
//	[mirrors]
//	"github.com/CorvidLabs/*" = "oci://mirror.corp/fledge/CorvidLabs/*"
//	"github.com/acme/*"       = "https://git.corp/mirror/acme/*"
//
// The source's '*' (its last segment) matches the rest of a repository's
// path, which takes the mirror's '*'. An oci:// mirror holds artifacts that
// fledge plugins mirror pushed (an OCI repository name is lower-case, so
// the path is lower-cased); an https://, ssh:// or file:// one is a git
// mirror. A file:///dir/* source maps repositories on this machine (or a
// share), as tests and air-gapped sites keep them.
type mirrorRule struct {
	from     pattern
	to       string // the template, with one trailing '*'
	fromText string
}

// Mirror is where a source is fetched from under a mirror rule.
type Mirror struct {
	// URL is the mirror's location for the source: oci://HOST/REPO or a
	// git URL.
	URL string
	// OCI says URL is an OCI repository.
	OCI bool
	// Rule names the rule, File the layer it came from.
	Rule, File string
}

func (l *Layer) loadMirrors(m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, from := range keys {
		to := m[from]
		rule := l.Rule("mirrors", fmt.Sprintf("%q", from))
		if !strings.HasSuffix(from, "/*") || strings.Count(from, "*") != 1 {
			return fmt.Errorf("%s: the source must end in /* (what it matches takes the mirror's *), as in \"github.com/my-org/*\"", rule)
		}
		p, err := parsePattern(from)
		if err != nil || (p.kind != "git" && p.kind != "file") {
			return fmt.Errorf("%s: the source must be a host/owner/* pattern of git repositories (or file:///dir/*)", rule)
		}
		low := strings.ToLower(to)
		if !strings.HasSuffix(to, "/*") || strings.Count(to, "*") != 1 ||
			!(strings.HasPrefix(low, "oci://") || strings.HasPrefix(low, "https://") || strings.HasPrefix(low, "ssh://") || strings.HasPrefix(low, "file://")) {
			return fmt.Errorf("%s = %q: the mirror must be oci://HOST/PREFIX/* or an https://, ssh:// or file:// git URL ending in /*", rule, to)
		}
		l.mirrors = append(l.mirrors, mirrorRule{from: p, to: to, fromText: from})
	}
	// The most specific rule first.
	sort.SliceStable(l.mirrors, func(i, j int) bool { return len(l.mirrors[i].from.segs) > len(l.mirrors[j].from.segs) })
	return nil
}

// MirrorFor is where the git repository at url is fetched from, when a
// mirror rule matches it: the first layer's (system, FLEDGE_POLICY, then
// config.toml) most specific rule.
func (s *Set) MirrorFor(url string) (Mirror, bool) {
	r, err := repourl.Parse(url)
	if err != nil {
		return Mirror{}, false
	}
	kind, segs := "git", append([]string{r.Host}, r.Segments()...)
	if r.IsFile() {
		kind, segs = "file", pathSegs(r.Path)
	}
	for _, l := range s.Layers() {
		for _, m := range l.mirrors {
			pre := m.from.segs[:len(m.from.segs)-1]
			if m.from.kind != kind || len(segs) <= len(pre) || (m.from.port != "" && m.from.port != r.EffectivePort()) {
				continue
			}
			ok := true
			for i, p := range pre {
				if match, _ := path.Match(p, strings.ToLower(segs[i])); !match {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			rest := strings.Join(segs[len(pre):], "/")
			oci := strings.HasPrefix(strings.ToLower(m.to), "oci://")
			if oci {
				rest = strings.ToLower(rest)
			}
			return Mirror{URL: strings.TrimSuffix(m.to, "*") + rest, OCI: oci, Rule: l.Rule("mirrors", fmt.Sprintf("%q", m.fromText)), File: l.Where()}, true
		}
	}
	return Mirror{}, false
}

package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/corvidlabs/fledge-go/repourl"
	"github.com/corvidlabs/fledge-go/treehash"
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
	// Tree is the content hash of the fetched tree, before anything is
	// built in it (treehash's "fh1:…", recorded as source_hash; the same
	// on every machine that installs the commit); a rule pinned to a
	// tree (pattern@tree:fh1:…) matches only a source of that tree.
	Tree string
	// TreePending says Tree is not known yet (nothing fetched, or not
	// hashed yet; Pending implies it): a tree-pinned allow rule passes the
	// source to be checked again once the tree is hashed, a tree-pinned
	// deny rule refuses only then.
	TreePending bool
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
	// matches of what it names; tree, when set, the one tree (treehash's
	// "fh1:…", lower-case). A pattern pins one or neither.
	commit, tree string
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
//	github.com/acme/x@tree:fh1:<64 hex>  that repository with that content only (the source_hash fledge records)
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
		if s, p.commit, p.tree, err = cutPin(raw, s); err != nil {
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

// treePin marks a pin of a tree hash: pattern@tree:fh1:<64 hex>. The
// word keeps it apart from an OCI digest (oci://…@sha256:…, a source form
// install takes), which names an artifact, not its content.
const treePin = "tree:"

// cutPin splits a pattern's pin off: an '@' after the last '/' (an
// scp-like user@ comes before the path), followed by a full commit hash
// or tree:<a tree hash>. Anything else there is refused: a tag or branch
// moves, and an OCI digest names an artifact, not what it holds.
func cutPin(raw, s string) (rest, commit, tree string, err error) {
	at := strings.LastIndexByte(s, '@')
	if at < 0 || at < strings.LastIndexByte(s, '/') {
		return s, "", "", nil
	}
	rest, pin := s[:at], strings.ToLower(s[at+1:])
	const fix = "write pattern@<commit> (40 hex digits, or 64 for a SHA-256 repository) or pattern@" + treePin + treehash.Prefix + "<64 hex digits> (a plugin's source_hash, as info --json and list --json show it), or leave the pin off"
	switch hexDigits := func(h string) bool { return strings.Trim(h, "0123456789abcdef") == "" }; {
	case strings.HasPrefix(pin, treePin):
		tree = pin[len(treePin):]
		if h, ok := strings.CutPrefix(tree, treehash.Prefix); !ok || len(h) != 64 || !hexDigits(h) {
			return "", "", "", fmt.Errorf("%q pins the tree %q, which is not a tree hash as fledge records it: %s", raw, s[at+1+len(treePin):], fix)
		}
	case strings.HasPrefix(pin, "sha256:") || strings.HasPrefix(pin, "sha512:"):
		return "", "", "", fmt.Errorf("%q pins the digest %q, which names an OCI artifact, not what it holds: a source rule pins a commit or a tree; %s", raw, s[at+1:], fix)
	case (len(pin) == 40 || len(pin) == 64) && hexDigits(pin):
		commit = pin
	default:
		return "", "", "", fmt.Errorf("%q pins %q: a source rule pins only a full commit hash or a tree hash, since a tag or branch can be moved; %s", raw, s[at+1:], fix)
	}
	if strings.ContainsAny(rest, "*?[") {
		what := "a commit"
		if tree != "" {
			what = "a tree"
		}
		return "", "", "", fmt.Errorf("%q pins %s of a glob: a pin is one repository's; name the repository without wildcards", raw, what)
	}
	return rest, commit, tree, nil
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
		out[i].tree, out[i].treePending = strings.ToLower(s.Tree), s.Pending || s.TreePending
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
	// commit and pending are Source's, tree and treePending too.
	commit, tree         string
	pending, treePending bool
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
	if s.Tree != "" && !s.Pending && !s.TreePending && len(parts) > 0 {
		parts = append(parts, "with tree "+s.Tree)
	}
	return strings.Join(parts, " ")
}

// matches reports whether p names id. A pinned pattern matches an
// identity whose commit (or tree) is not known yet only when pending says
// so: an allow rule lets it on to be checked again, a deny rule waits.
func (p pattern) matches(id identity, pending bool) bool {
	if p.kind != id.kind || (p.port != "" && p.port != id.port) || !matchSegs(p.segs, id.segs) {
		return false
	}
	switch {
	case p.commit != "" && id.pending, p.tree != "" && id.treePending:
		return pending
	case p.commit != "":
		return id.commit == p.commit
	case p.tree != "":
		return id.tree == p.tree
	}
	return true
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

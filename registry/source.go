package registry

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/corvidlabs/fledge-go/internal/redact"
	"github.com/corvidlabs/fledge-go/repourl"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// SourceKind says how a source is fetched.
type SourceKind string

// Source kinds.
const (
	SourceLocal SourceKind = "local"    // a directory on this machine
	SourceGit   SourceKind = "git"      // a git URL or owner/repo shorthand
	SourceName  SourceKind = "registry" // a plugin name to look up
)

// Source is a parsed install source.
type Source struct {
	Raw  string
	Kind SourceKind
	// Path is the absolute, cleaned directory of a local source.
	Path string
	// URL is what a git source is fetched from. It may carry credentials
	// the user typed; show Display instead.
	URL string
	// Ref is the text after '@': a tag, branch, commit or semver constraint.
	Ref string
	// Name is the registry name of a SourceName, or the repository name
	// (last path segment, .git removed) of a SourceGit.
	Name string
	// Display is the source as recorded and shown: no ref, no credentials.
	// owner/repo shorthand stays shorthand, as the Rust fledge records it.
	Display string
	// Shorthand is set for owner/repo sources.
	Shorthand bool
	// Host (HOST[:PORT]) and Repository are an OCI source's registry and
	// repository.
	Host, Repository string
}

// String renders the source with its ref, without credentials.
func (s Source) String() string {
	if s.Ref == "" {
		return s.Display
	}
	if s.Kind == SourceOCI && !IsDigest(s.Ref) {
		return s.Display + ":" + s.Ref
	}
	return s.Display + "@" + s.Ref
}

var (
	shorthandRe = lazyRegexp(`^([A-Za-z0-9][A-Za-z0-9_.-]*)/([A-Za-z0-9_.][A-Za-z0-9_.-]*)$`)
	nameRe      = lazyRegexp(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	scpRe       = lazyRegexp(`^([A-Za-z0-9_.-]+)@([A-Za-z0-9.-]+):(.+)$`)
)

// lazyRE is a regexp compiled on first use rather than at package init,
// so commands that never parse a source (--version, list, run) do not pay
// for it at start-up.
type lazyRE struct {
	re func() *regexp.Regexp
}

func lazyRegexp(expr string) *lazyRE {
	return &lazyRE{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

func (l *lazyRE) MatchString(s string) bool { return l.re().MatchString(s) }

func (l *lazyRE) FindStringSubmatch(s string) []string { return l.re().FindStringSubmatch(s) }

func (l *lazyRE) ReplaceAllStringFunc(s string, fn func(string) string) string {
	return l.re().ReplaceAllStringFunc(s, fn)
}

// ParseSource parses an install source. githubBase is what owner/repo
// expands to (FLEDGE_GITHUB_URL, default https://github.com). Only explicit
// path forms (., .., ./x, ../x, /abs) are local: owner/repo never is.
func ParseSource(raw, githubBase string) (Source, error) {
	s := Source{Raw: raw}
	if raw == "" {
		return s, fmt.Errorf("empty source")
	}
	if strings.HasPrefix(raw, "-") {
		return s, fmt.Errorf("source %q starts with '-': it would be read as an option", raw)
	}
	if u := termsafe.FirstUnsafe(raw, false); u != nil {
		return s, fmt.Errorf("source %q holds %s", raw, u)
	}
	if isLocalPath(raw) {
		abs, err := filepath.Abs(raw)
		if err != nil {
			return s, fmt.Errorf("source %q: %w", raw, err)
		}
		s.Kind, s.Path, s.Display = SourceLocal, abs, abs
		return s, nil
	}
	if helper, ok := repourl.TransportHelper(raw); ok {
		return s, fmt.Errorf("source %q uses a git transport helper (%s::), which fledge refuses: use an https:// or ssh:// URL", raw, helper)
	}
	if len(raw) > len(OCIScheme) && strings.EqualFold(raw[:len(OCIScheme)], OCIScheme) {
		return parseOCISource(s, OCIScheme+raw[len(OCIScheme):])
	}
	if i := strings.Index(raw, "://"); i > 0 {
		return parseURLSource(s, raw, i)
	}
	if m := scpRe.FindStringSubmatch(raw); m != nil && !strings.Contains(m[1], "/") {
		path, ref := splitRef(m[3])
		if err := checkRef(raw, ref); err != nil {
			return s, err
		}
		s.Kind, s.URL, s.Ref = SourceGit, m[1]+"@"+m[2]+":"+path, ref
		r, err := repourl.Parse(s.URL)
		if err != nil {
			return s, fmt.Errorf("source %v", err)
		}
		s.Display, s.Name = s.URL, r.Name
		return s, nil
	}
	base, ref := splitRef(raw)
	if err := checkRef(raw, ref); err != nil {
		return s, err
	}
	if m := shorthandRe.FindStringSubmatch(base); m != nil {
		if isDots(m[1]) || isDots(m[2]) {
			return s, fmt.Errorf("source %q: '.' and '..' are not repository names", raw)
		}
		gb := strings.TrimRight(githubBase, "/")
		if gb == "" {
			gb = "https://github.com"
		}
		s.Kind, s.URL, s.Ref, s.Shorthand = SourceGit, gb+"/"+m[1]+"/"+m[2], ref, true
		if _, err := repourl.Parse(s.URL); err != nil {
			return s, fmt.Errorf("source %q under %s: %v", raw, RedactURL(gb), RedactError(err))
		}
		s.Display = m[1] + "/" + m[2]
		s.Name = repoName(m[2])
		return s, nil
	}
	if nameRe.MatchString(base) && !isDots(base) {
		s.Kind, s.Name, s.Ref, s.Display = SourceName, base, ref, base
		return s, nil
	}
	return s, fmt.Errorf("cannot tell what source %q is: use ./dir or /abs/dir for a local plugin, owner/repo, a git URL (https://, ssh://, git://, file://, git@host:owner/repo), or a registry name", raw)
}

func parseURLSource(s Source, raw string, schemeEnd int) (Source, error) {
	scheme := strings.ToLower(raw[:schemeEnd])
	rest := raw[schemeEnd+3:]
	authority, path := rest, ""
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		authority, path = rest[:j], rest[j:]
	}
	path, ref := splitRef(path)
	if err := checkRef(raw, ref); err != nil {
		return s, err
	}
	full := scheme + "://" + authority + path
	switch scheme {
	case "https", "http", "ssh", "git", "file":
	default:
		return s, fmt.Errorf("source %q uses the %s:// transport, which fledge does not fetch: use https://, ssh://, git:// or file:// (or oci:// for a registry artifact)", RedactURL(raw), scheme)
	}
	// The one git-URL parser decides what the URL names, or refuses it.
	r, err := repourl.Parse(full)
	if err != nil {
		return s, fmt.Errorf("source %v", RedactError(err))
	}
	if scheme == "http" && !isLoopbackHost(r.Host) {
		return s, fmt.Errorf("source %q uses plain http, which anyone on the network can tamper with: use https://", RedactURL(raw))
	}
	s.Kind, s.URL, s.Ref = SourceGit, full, ref
	s.Display = RedactURL(full)
	s.Name = r.Name
	return s, nil
}

// splitRef splits "path@ref" at the first '@' (a repository path has none;
// a ref such as a branch "feature/x" may hold '/').
func splitRef(s string) (base, ref string) {
	if i := strings.IndexByte(s, '@'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

func checkRef(raw, ref string) error {
	if ref == "" && strings.HasSuffix(raw, "@") {
		return fmt.Errorf("source %q ends with '@' but names no ref", RedactURL(raw))
	}
	if strings.HasPrefix(ref, "-") {
		return fmt.Errorf("ref %q starts with '-': it would be read as an option", ref)
	}
	if len(ref) > 255 {
		return fmt.Errorf("ref in %q is longer than 255 characters", RedactURL(raw))
	}
	return nil
}

func repoName(path string) string {
	path = strings.TrimRight(path, "/")
	if i := strings.LastIndexAny(path, "/:"); i >= 0 {
		path = path[i+1:]
	}
	return strings.TrimSuffix(path, ".git")
}

func isDots(s string) bool { return s == "." || s == ".." }

func isLocalPath(s string) bool {
	if s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/") {
		return true
	}
	if runtime.GOOS == "windows" {
		return strings.HasPrefix(s, `.\`) || strings.HasPrefix(s, `..\`) || filepath.IsAbs(s)
	}
	return false
}

// IsLoopbackHost reports whether host is localhost or a loopback address:
// the one place plain http may carry a credential (a test server).
func IsLoopbackHost(host string) bool { return isLoopbackHost(host) }

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RedactText removes the credentials of every URL in s (see
// redact.Text, which this is).
func RedactText(s string) string { return redact.Text(s) }

// RedactError returns err with the credentials of every URL removed from
// its message, still wrapping err (see redact.Error).
func RedactError(err error) error { return redact.Error(err) }

// RedactURL removes the credentials from a URL (see redact.URL).
func RedactURL(s string) string { return redact.URL(s) }

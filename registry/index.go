package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// Entry is one plugin as a registry describes it. Everything in it comes
// from the network and is hostile: sanitise it before showing it, and never
// take ClaimedTier or ClaimedInstall at face value (fledge computes the tier
// from Repo, see trust.Config.Of, and the source to install from Repo, see
// InstallSource).
type Entry struct {
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	Version     string `json:"version"`
	Description string `json:"description"`
	Language    string `json:"language"`
	// ClaimedTier is the index's own trust_tier field, kept for reference.
	ClaimedTier string `json:"trust_tier"`
	// ClaimedInstall is the index's own install command, kept for reference.
	ClaimedInstall string    `json:"install"`
	Repo           string    `json:"repo"`
	Topics         []string  `json:"topics"`
	Stars          int       `json:"stars"`
	UpdatedAt      time.Time `json:"-"`
	DefaultBranch  string    `json:"default_branch"`
}

// Result is what a search or lookup found, and how fresh it is.
type Result struct {
	Entries []Entry
	// Source names where the entries came from: the index URL, or the
	// GitHub API search URL (without credentials).
	Source string
	// Stale is set when the network failed and a cached copy answered.
	Stale *Stale
	// Incomplete is set when the backend had more matches than it returned
	// (GitHub search returns one page).
	Incomplete bool
}

// Stale describes a cached answer given because the network failed.
type Stale struct {
	// FetchedAt is when the cached copy was last confirmed by the server.
	FetchedAt time.Time
	// Age is how old the cached copy was when it answered.
	Age time.Duration
	// Err is why the network could not answer.
	Err error
}

// Index finds plugins. Both backends, an index file (IndexClient) and
// GitHub's topic search (GitHubClient), implement it.
type Index interface {
	// Search returns the plugins matching q (all of them for the zero
	// Query), best matches first.
	Search(ctx context.Context, q Query) (*Result, error)
	// Lookup returns the candidates for a registry name: entries whose
	// name or slug is name, or whose name is fledge-plugin-<name>
	// (case-insensitively). No candidate is not an error; more than one is
	// ambiguous (Resolve refuses both).
	Lookup(ctx context.Context, name string) (*Result, error)
}

// Bounds on an index. Real indexes are tens of KiB.
const (
	// MaxIndexSize bounds a response body or index file.
	MaxIndexSize = 8 << 20
	// MaxEntries bounds how many plugins one index may list.
	MaxEntries = 20000
	// MaxQueryLen bounds a search query (GitHub's own limit).
	MaxQueryLen = 256
	// maxFieldLen bounds each string field of an entry; the description
	// may be long, the rest are names and URLs.
	maxFieldLen     = 4096
	maxDescLen      = 64 << 10
	maxTopics       = 100
	maxNameLen      = 256
	namePrefix      = "fledge-plugin-"
	shortNamePrefix = "fledge-"
)

// IndexError says what is wrong with an index: which entry and which field.
type IndexError struct {
	// Source is the index URL or file.
	Source string
	// Entry is the 1-based position of the offending entry, 0 when the
	// problem is the document as a whole.
	Entry int
	// Name is the offending entry's name, when it has one.
	Name string
	// Problem says what is wrong.
	Problem string
}

func (e *IndexError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "registry index at %s: ", e.Source)
	if e.Entry > 0 {
		fmt.Fprintf(&b, "entry %d", e.Entry)
		if e.Name != "" {
			fmt.Fprintf(&b, " (%q)", e.Name)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// DecodeIndex parses an index document: a JSON array of entries in the
// format of testdata/registry-plugins.json. source names the index in
// errors. Unknown fields are ignored, so the format can grow; a missing
// name or repo, a repo that is not a git URL, a wrong type or an oversized
// field is an *IndexError naming the entry and the field.
func DecodeIndex(data []byte, source string) ([]Entry, error) {
	bad := func(entry int, name, format string, a ...any) error {
		return &IndexError{Source: source, Entry: entry, Name: name, Problem: fmt.Sprintf(format, a...)}
	}
	if len(data) > MaxIndexSize {
		return nil, bad(0, "", "%d bytes, more than the %d allowed", len(data), MaxIndexSize)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, bad(0, "", "empty document; want a JSON array of plugins")
	}
	if trimmed[0] != '[' {
		return nil, bad(0, "", "want a JSON array of plugins, got %s", jsonKind(trimmed[0]))
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(trimmed, &raws); err != nil {
		return nil, bad(0, "", "%s", describeJSONError(err))
	}
	if len(raws) > MaxEntries {
		return nil, bad(0, "", "%d entries, more than the %d allowed", len(raws), MaxEntries)
	}
	entries := make([]Entry, 0, len(raws))
	for i, raw := range raws {
		n := i + 1
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '{' {
			return nil, bad(n, "", "want a JSON object, got %s", jsonKind(firstByte(raw)))
		}
		var e Entry
		var date struct {
			UpdatedAt *string `json:"updated_at"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, bad(n, peekName(raw), "%s", describeJSONError(err))
		}
		if err := json.Unmarshal(raw, &date); err != nil {
			return nil, bad(n, displayName(e.Name), "%s", describeJSONError(err))
		}
		if date.UpdatedAt != nil && *date.UpdatedAt != "" {
			t, err := time.Parse(time.RFC3339, *date.UpdatedAt)
			if err != nil {
				return nil, bad(n, displayName(e.Name), "updated_at: %q is not an RFC 3339 time", termsafe.Truncate(*date.UpdatedAt, 40))
			}
			e.UpdatedAt = t.UTC()
		}
		if problem := checkEntry(&e); problem != "" {
			return nil, bad(n, displayName(e.Name), "%s", problem)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// checkEntry validates and normalises one entry, returning what is wrong
// with it or "".
func checkEntry(e *Entry) string {
	if strings.TrimSpace(e.Name) == "" {
		return "missing name"
	}
	if strings.TrimSpace(e.Repo) == "" {
		return "missing repo"
	}
	fields := []struct {
		name string
		val  string
		max  int
	}{
		{"name", e.Name, maxNameLen}, {"slug", e.Slug, maxNameLen}, {"version", e.Version, maxFieldLen},
		{"description", e.Description, maxDescLen}, {"language", e.Language, maxFieldLen},
		{"trust_tier", e.ClaimedTier, maxFieldLen}, {"install", e.ClaimedInstall, maxFieldLen},
		{"repo", e.Repo, maxFieldLen}, {"default_branch", e.DefaultBranch, maxFieldLen},
	}
	for _, f := range fields {
		if len(f.val) > f.max {
			return fmt.Sprintf("%s: %d bytes, more than the %d allowed", f.name, len(f.val), f.max)
		}
		if !utf8.ValidString(f.val) {
			return fmt.Sprintf("%s: not valid UTF-8", f.name)
		}
	}
	if len(e.Topics) > maxTopics {
		return fmt.Sprintf("topics: %d, more than the %d allowed", len(e.Topics), maxTopics)
	}
	for _, t := range e.Topics {
		if len(t) > maxNameLen || !utf8.ValidString(t) {
			return "topics: a topic is too long or not valid UTF-8"
		}
	}
	if e.Stars < 0 {
		return fmt.Sprintf("stars: %d is negative", e.Stars)
	}
	if err := CheckRepoURL(e.Repo); err != nil {
		return "repo: " + err.Error()
	}
	if e.Topics == nil {
		e.Topics = []string{}
	}
	return ""
}

// CheckRepoURL reports whether repo is a git URL fledge may clone: an
// http(s), ssh, git or file URL with a host (or a file path), or scp-like
// git@host:path, in printable ASCII. Anything else (option-like strings,
// other schemes, credentials in the URL, control, bidi or other non-ASCII
// characters) is refused.
func CheckRepoURL(repo string) error {
	if repo == "" {
		return errors.New("empty")
	}
	if strings.HasPrefix(repo, "-") {
		return fmt.Errorf("%q starts with '-'", termsafe.Truncate(repo, 80))
	}
	// Printable ASCII only: a URL shown to a user must be the URL used, so
	// nothing a sanitiser would strip (bidi controls, look-alikes) may hide
	// in it. Git hosts' owner and repository names are ASCII.
	for i := 0; i < len(repo); i++ {
		if c := repo[i]; c <= ' ' || c >= 0x7f {
			return errors.New("contains a space, control or non-ASCII character")
		}
	}
	if strings.HasPrefix(repo, "git@") && !strings.Contains(repo, "://") {
		host, path, ok := strings.Cut(strings.TrimPrefix(repo, "git@"), ":")
		if !ok || host == "" || path == "" || strings.ContainsAny(host, "/@") {
			return fmt.Errorf("%q is not host:path after git@", termsafe.Truncate(repo, 80))
		}
		return nil
	}
	u, err := url.Parse(repo)
	if err != nil {
		return fmt.Errorf("%q is not a URL", termsafe.Truncate(repo, 80))
	}
	switch u.Scheme {
	case "https", "http", "ssh", "git":
		if u.Host == "" {
			return fmt.Errorf("%q has no host", termsafe.Truncate(repo, 80))
		}
		if u.Scheme != "ssh" && u.User != nil {
			return errors.New("carries credentials")
		}
	case "file":
		if u.Path == "" {
			return fmt.Errorf("%q has no path", termsafe.Truncate(repo, 80))
		}
	case "":
		return fmt.Errorf("%q is not a URL (want https://…, ssh://…, git://…, file://… or git@host:path)", termsafe.Truncate(repo, 80))
	default:
		return fmt.Errorf("scheme %q is not a git transport", termsafe.Truncate(u.Scheme, 20))
	}
	if u.Path == "" || u.Path == "/" {
		return fmt.Errorf("%q names no repository", termsafe.Truncate(repo, 80))
	}
	return nil
}

func jsonKind(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	case c == 0:
		return "nothing"
	}
	return "something that is not JSON"
}

func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// describeJSONError turns encoding/json's errors into "field: want X, got
// Y" or "invalid JSON at byte N: …".
func describeJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("%s: want %s, got %s", field, goTypeToJSON(te.Type.Kind().String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func goTypeToJSON(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "ptr":
		return "a string or null"
	}
	return kind
}

// displayName is name when it is fit to quote in an error, else "".
func displayName(name string) string {
	if strings.TrimSpace(name) == "" || len(name) > maxNameLen || !utf8.ValidString(name) {
		return ""
	}
	return name
}

// peekName returns the entry's name for an error message when the entry
// fails to decode as a whole.
func peekName(raw []byte) string {
	var v struct {
		Name any `json:"name"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	s, _ := v.Name.(string)
	return displayName(s)
}

// IsCandidate reports whether e answers to the registry name: its name or
// slug is name, or its name is fledge-plugin-<name>, ignoring case (GitHub
// repository names are case-insensitive).
func IsCandidate(e Entry, name string) bool {
	name = strings.TrimSpace(name)
	if name == "" {
		return false
	}
	return strings.EqualFold(e.Name, name) ||
		(e.Slug != "" && strings.EqualFold(e.Slug, name)) ||
		strings.EqualFold(e.Name, namePrefix+name)
}

// lookupIn returns the candidates for name among entries, sorted.
func lookupIn(entries []Entry, name string) []Entry {
	out := []Entry{}
	for _, e := range entries {
		if IsCandidate(e, name) {
			out = append(out, e)
		}
	}
	sortEntries(out, name)
	return out
}

// searchIn returns the entries matching every word of query in their name,
// slug, description or topics (case-insensitively), best first.
func searchIn(entries []Entry, query string) []Entry {
	words := strings.Fields(strings.ToLower(query))
	out := []Entry{}
	for _, e := range entries {
		if matchesAll(e, words) {
			out = append(out, e)
		}
	}
	sortEntries(out, query)
	return out
}

func matchesAll(e Entry, words []string) bool {
	if len(words) == 0 {
		return true
	}
	hay := strings.ToLower(e.Name + "\x00" + e.Slug + "\x00" + e.Description + "\x00" + strings.Join(e.Topics, "\x00"))
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// sortEntries orders entries deterministically: exact name matches for
// query first, then names containing it, then by stars (descending), name
// and repo.
func sortEntries(entries []Entry, query string) {
	q := strings.ToLower(strings.TrimSpace(query))
	rank := func(e Entry) int {
		if q == "" {
			return 0
		}
		name, slug := strings.ToLower(e.Name), strings.ToLower(e.Slug)
		switch {
		case name == q || slug == q || name == namePrefix+q:
			return 0
		case strings.Contains(name, q) || strings.Contains(slug, q):
			return 1
		}
		return 2
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if a.Stars != b.Stars {
			return a.Stars > b.Stars
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Repo < b.Repo
	})
}

// checkQuery bounds a user's query.
func checkQuery(query string) error {
	if len(query) > MaxQueryLen {
		return fmt.Errorf("search query is %d bytes, more than the %d allowed", len(query), MaxQueryLen)
	}
	if !utf8.ValidString(query) {
		return errors.New("search query is not valid UTF-8")
	}
	return nil
}

// DefaultGitHubURL is where owner/repo shorthand points unless
// FLEDGE_GITHUB_URL says otherwise.
const DefaultGitHubURL = "https://github.com"

// InstallSource is what to pass to fledge plugins install for e, computed
// from e.Repo (never from the index's own install text): owner/repo when
// the repo lives at githubBase (FLEDGE_GITHUB_URL; empty means github.com),
// the repo URL otherwise.
func InstallSource(e Entry, githubBase string) string {
	if githubBase == "" {
		githubBase = DefaultGitHubURL
	}
	base := strings.TrimRight(githubBase, "/") + "/"
	repo := strings.TrimSuffix(strings.TrimRight(e.Repo, "/"), ".git")
	if len(repo) > len(base) && strings.EqualFold(repo[:len(base)], base) {
		rest := repo[len(base):]
		owner, name, ok := strings.Cut(rest, "/")
		if ok && owner != "" && name != "" && !strings.ContainsAny(name, "/?#") {
			return owner + "/" + name
		}
	}
	return e.Repo
}

package registry

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/repourl"
	"github.com/corvidlabs/fledge-go/trust"
)

func TestParseSource(t *testing.T) {
	abs, _ := filepath.Abs("./x")
	tests := []struct {
		raw                     string
		kind                    SourceKind
		url, ref, name, display string
	}{
		{raw: "./x", kind: SourceLocal, display: abs},
		{raw: "owner/fledge-plugin-a", kind: SourceGit, url: "https://github.com/owner/fledge-plugin-a", name: "fledge-plugin-a", display: "owner/fledge-plugin-a"},
		{raw: "owner/repo@v1.2.0", kind: SourceGit, url: "https://github.com/owner/repo", ref: "v1.2.0", name: "repo", display: "owner/repo"},
		{raw: "owner/repo@^1.2", kind: SourceGit, url: "https://github.com/owner/repo", ref: "^1.2", name: "repo", display: "owner/repo"},
		{raw: "owner/repo@>=1.0, <2", kind: SourceGit, url: "https://github.com/owner/repo", ref: ">=1.0, <2", name: "repo", display: "owner/repo"},
		{raw: "owner/repo@feature/x", kind: SourceGit, url: "https://github.com/owner/repo", ref: "feature/x", name: "repo", display: "owner/repo"},
		{raw: "https://github.com/o/r.git@main", kind: SourceGit, url: "https://github.com/o/r.git", ref: "main", name: "r", display: "https://github.com/o/r.git"},
		{raw: "https://user:tok@host.example/o/r@v1", kind: SourceGit, url: "https://user:tok@host.example/o/r", ref: "v1", name: "r", display: "https://host.example/o/r"},
		{raw: "ssh://git@github.com/o/r", kind: SourceGit, url: "ssh://git@github.com/o/r", name: "r", display: "ssh://git@github.com/o/r"},
		{raw: "git@github.com:o/r.git@v2", kind: SourceGit, url: "git@github.com:o/r.git", ref: "v2", name: "r", display: "git@github.com:o/r.git"},
		{raw: "file:///tmp/repos/o/fledge-plugin-x@abc1234", kind: SourceGit, url: "file:///tmp/repos/o/fledge-plugin-x", ref: "abc1234", name: "fledge-plugin-x", display: "file:///tmp/repos/o/fledge-plugin-x"},
		{raw: "hello", kind: SourceName, name: "hello", display: "hello"},
		{raw: "hello@^1", kind: SourceName, name: "hello", ref: "^1", display: "hello"},
	}
	for _, tt := range tests {
		s, err := ParseSource(tt.raw, "https://github.com")
		if err != nil {
			t.Errorf("ParseSource(%q): %v", tt.raw, err)
			continue
		}
		if s.Kind != tt.kind || s.URL != tt.url || s.Ref != tt.ref || s.Display != tt.display || (tt.name != "" && s.Name != tt.name) {
			t.Errorf("ParseSource(%q) = kind %s url %q ref %q name %q display %q; want %s %q %q %q %q",
				tt.raw, s.Kind, s.URL, s.Ref, s.Name, s.Display, tt.kind, tt.url, tt.ref, tt.name, tt.display)
		}
	}
}

// A source, a local path too, is shown in every message about the install:
// one a terminal would not show as it is (a bidi override, a C1 control)
// is refused, naming the character.
func TestParseSourceRefusesUnshowable(t *testing.T) {
	for raw, what := range map[string]string{
		"./plug\u202eni":         "U+202E",
		"./plug\u009bin":         "U+009B",
		"https://host/o/r\u200b": "U+200B",
		"./bell\a":               "U+0007",
	} {
		_, err := ParseSource(raw, "https://github.com")
		if err == nil || !strings.Contains(err.Error(), what) {
			t.Errorf("ParseSource(%q) = %v, want an error naming %s", raw, err, what)
		}
	}
}

func TestParseSourceShorthandBase(t *testing.T) {
	s, err := ParseSource("o/r@v1", "file:///srv/git/")
	if err != nil || s.URL != "file:///srv/git/o/r" {
		t.Fatalf("got %q, %v", s.URL, err)
	}
}

func TestParseSourceRefuses(t *testing.T) {
	for _, raw := range []string{
		"", "-u", "--upload-pack=evil", "ext::sh -c touch% /tmp/pwned", "o/r@--upload-pack=x", "o/r@",
		"http://evil.example/o/r", "ftp://host/o/r", "o/..", "../..@x/../", "a/b/c", "https://host/../x",
		"file://remote-host/x", "o/r\x1b[2J", "fd::3", "https://host/",
	} {
		if s, err := ParseSource(raw, "https://github.com"); err == nil && s.Kind != SourceLocal {
			t.Errorf("ParseSource(%q) = %+v, want an error", raw, s)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:secret@host/o/r": "https://host/o/r",
		"https://ghp_token@host/o/r":   "https://host/o/r",
		"ssh://git@github.com/o/r":     "ssh://git@github.com/o/r",
		"ssh://git:pw@github.com/o/r":  "ssh://git@github.com/o/r",
		"https://host/o/r@v1":          "https://host/o/r@v1",
		"git@github.com:o/r":           "git@github.com:o/r",
		// A password holding '@' is cut at the last one, not the first.
		"https://user:p@ss@host/x": "https://host/x",
		"ssh://git:p@ss@host/x":    "ssh://git@host/x",
		// Tokens travel in http queries too.
		"http://h/o/r?private_token=abc#frag":    "http://h/o/r",
		"https://h/o/r#token":                    "https://h/o/r",
		"https://us%er:p%zz@h/x":                 "https://h/x", // does not parse as a URL
		"HTTPS://User:Pass@Example.com/Repo.git": "HTTPS://Example.com/Repo.git",
		"git://user@host/r":                      "git://host/r",
		"file:///tmp/repo":                       "file:///tmp/repo",
		"/local/path":                            "/local/path",
	} {
		if got := RedactURL(in); got != want || strings.Contains(got, "secret") {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactText(t *testing.T) {
	for in, want := range map[string]string{
		`clone https://ghp_tok123@host/o/r: Get "https://ghp_tok123@host/o/r/info/refs": 401`: `clone https://host/o/r: Get "https://host/o/r/info/refs": 401`,
		"a https://u:p@h/x and http://t@127.0.0.1:1/y":                                        "a https://h/x and http://127.0.0.1:1/y",
		"ssh://git@github.com/o/r ssh://git:pw@h/r":                                           "ssh://git@github.com/o/r ssh://git@h/r",
		"no urls here, user@example.com":                                                      "no urls here, user@example.com",
		`fetch "https://a:p@ss@h/x?access_token=t": 401`:                                      `fetch "https://h/x": 401`,
	} {
		if got := RedactText(in); got != want {
			t.Errorf("RedactText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A redacted error hides the token in its message and still is what it
// wraps: a cancelled fetch reads as an interrupt, a typed error as itself.
func TestRedactErrorWraps(t *testing.T) {
	inner := &typed{fmt.Errorf("clone https://ghp_tok123@host/o/r: %w", context.Canceled)}
	err := RedactError(fmt.Errorf("list refs: %w", inner))
	if got, want := err.Error(), "list refs: clone https://host/o/r: context canceled"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, context.Canceled) {
		t.Error("errors.Is(context.Canceled) is false")
	}
	var ty *typed
	if !errors.As(err, &ty) || ty != inner {
		t.Error("errors.As lost the typed error")
	}
	if RedactError(nil) != nil {
		t.Error("RedactError(nil) != nil")
	}
}

type typed struct{ err error }

func (e *typed) Error() string { return e.err.Error() }
func (e *typed) Unwrap() error { return e.err }

func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"./x", "o/r@v1", "https://github.com/CorvidLabs/x@^1.2", "git@github.com:o/r@main", "file:///a/b@c", "name@~0.3", "ext::sh", "https://u:p@h/o/r"} {
		f.Add(s)
	}
	sources, _ := realIndexFields(f)
	for _, s := range sources {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := ParseSource(raw, "https://github.com")
		if err != nil {
			return
		}
		if strings.HasPrefix(s.Ref, "-") || strings.HasPrefix(s.URL, "-") {
			t.Fatalf("option-like ref or URL accepted: %+v", s)
		}
		// git reads <helper>::<address> only when the scheme's characters
		// run straight into "::" (transport.c); "::" elsewhere is an IPv6
		// host or a path.
		if _, helper := repourl.TransportHelper(s.URL); helper {
			t.Fatalf("transport helper accepted: %q", s.URL)
		}
		if s.Kind == SourceGit && (TrustConfig{}).Of(s.URL) == TierOfficial {
			owner, _ := RepoOwnerName(s.URL)
			if !strings.EqualFold(owner, trust.OfficialOwner) {
				t.Fatalf("official without a github.com/CorvidLabs owner: %q", s.URL)
			}
			if strings.Contains(s.URL, "%") || strings.Contains(s.URL, "/../") {
				t.Fatalf("official despite encoding or dot segments: %q", s.URL)
			}
		}
	})
}

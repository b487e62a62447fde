package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A deny rule matches every spelling of the repository it names; a
// spelling the parser refuses passes no source rule.
func TestDenyMatchesEverySpelling(t *testing.T) {
	t.Parallel()
	l, err := Parse("sys", []byte("[sources]\ndeny = [\"github.com/evil/*\", \"127.0.0.1:8080/evil/*\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{l}}
	for _, u := range []string{
		"https://github.com/evil//fledge-plugin-x",
		"https://github.com/evil/./fledge-plugin-x",
		"https://github.com/evil/x/../fledge-plugin-x",
		"https://github.com/EVIL/fledge-plugin-x",
		"HTTPS://GITHUB.COM/evil/fledge-plugin-x.git/",
		"https://github.com.:443/evil/fledge-plugin-x",
		"https://github.com/%65vil/fledge-plugin-x",
		"https://token@github.com//evil//fledge-plugin-x//",
		"ssh://git@github.com/evil//fledge-plugin-x",
		"git@github.com:evil//fledge-plugin-x.git",
		"git@github.com:/evil/fledge-plugin-x",
		"git://github.com/evil/fledge-plugin-x",
		"http://127.0.0.1:8080/evil//fledge-plugin-x",
		"http://127.0.0.1:08080/evil/./fledge-plugin-x/",
		"HTTP://127.0.0.1:8080/evil/x/../fledge-plugin-x.git",
		"http://[::ffff:127.0.0.1]:8080/evil/fledge-plugin-x",
		// Refused by the parser, so by the rule:
		"https://github.com/evil%2Ffledge-plugin-x",
		"https://github.com/evil%2ffledge-plugin-x",
		"https://github.com/x/..%2F..%2Fevil/fledge-plugin-x",
		"http://127.1:8080/evil/fledge-plugin-x",
		"http://2130706433:8080/evil/fledge-plugin-x",
		"https://github.com/evil/fledge-plugin-x?x",
		"https://github.com/evil\\fledge-plugin-x",
		"ssh://git@github.com/x/../evil/fledge-plugin-x",
	} {
		d := s.CheckSource(Source{URL: u})
		if d == nil || d.Rule != "[sources] deny" {
			t.Errorf("%s: passed the deny rules (%v)", u, d)
		}
	}
	for _, u := range []string{
		"https://github.com/evil-twin/fledge-plugin-x",
		"https://github.com/evil/sub/fledge-plugin-x",
		"http://127.0.0.1:8081/evil/fledge-plugin-x", // another port: another server
		"https://gitlab.com/evil/fledge-plugin-x",
	} {
		if d := s.CheckSource(Source{URL: u}); d != nil {
			t.Errorf("%s: refused (%v)", u, d)
		}
	}
}

// A rule naming a port matches that port only (its default included); a
// rule without one matches every port of the host.
func TestPatternPorts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rule, url string
		match     bool
	}{
		{"git.example.com/o/*", "https://git.example.com:8443/o/x", true},
		{"git.example.com:443/o/*", "https://git.example.com/o/x", true},
		{"git.example.com:443/o/*", "ssh://git.example.com/o/x", false},
		{"git.example.com:22/o/*", "git@git.example.com:o/x", true},
		{"https://git.example.com:443/o/*", "ssh://git.example.com:2222/o/x", true},
		{"https://git.example.com:8443/o/*", "https://git.example.com/o/x", false},
		{"127.0.0.1:80/o/*", "http://127.0.0.1/o/x", true},
		{"git@git.example.com:o/*", "https://GIT.example.com/o/x.git", true},
	} {
		p, err := parsePattern(c.rule)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		ids, err := Source{URL: c.url}.identities()
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if _, got := anyMatch([]pattern{p}, ids, false); got != c.match {
			t.Errorf("%q matches %q: %v, want %v", c.rule, c.url, got, c.match)
		}
	}
}

// file:// sources and plain paths are matched by their real path: a
// symlink or a doubled slash does not hide a denied directory, at install
// (a Source with a URL) or at run time (the record's URL or path).
func TestFileSourcesMatchRealPath(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	evil := filepath.Join(work, "evil")
	if err := os.MkdirAll(filepath.Join(evil, "fledge-plugin-ev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(work, "good", "fledge-plugin-ok"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(evil, filepath.Join(work, "alias")); err != nil {
		t.Fatal(err)
	}
	// The rule is written through the unresolved temp dir, as an admin
	// writes /tmp/... where /tmp may itself be a link.
	l, err := Parse("sys", []byte(fmt.Sprintf("[sources]\ndeny = [%q]\n", "file://"+filepath.ToSlash(work)+"/evil/*")))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{l}}
	w := filepath.ToSlash(work)
	for _, src := range []Source{
		{URL: "file://" + w + "/evil/fledge-plugin-ev"},
		{URL: "file://" + w + "/alias/fledge-plugin-ev"},
		{URL: "file://" + w + "//evil/fledge-plugin-ev"},
		{URL: "file://" + w + "/./evil/../evil/fledge-plugin-ev/"},
		{URL: "file://" + w + "/alias/fledge-plugin-ev.git"},
		{URL: "file://localhost" + w + "/alias/fledge-plugin-ev"},
		{URL: "file://" + w + "/evil/fledge-plugin-%65v"},
		{Path: w + "/alias/fledge-plugin-ev"},
		{Path: w + "//evil/fledge-plugin-ev"},
	} {
		if d := s.CheckSource(src); d == nil {
			t.Errorf("%v passed the deny rule", src)
		}
	}
	for _, src := range []Source{
		{URL: "file://" + w + "/good/fledge-plugin-ok"},
		{Path: w + "/good/fledge-plugin-ok"},
	} {
		if d := s.CheckSource(src); d != nil {
			t.Errorf("%v refused: %v", src, d)
		}
	}
}

// A source URL the parser refuses is refused by a layer with source
// rules, with the parser's reason; with no source rules, nothing is
// checked.
func TestUnreadableSource(t *testing.T) {
	t.Parallel()
	allow, _ := Parse("sys", []byte("[sources]\nallow = [\"**\"]\n"))
	caps, _ := Parse("caps", []byte("[capabilities]\nunverified = []\n"))
	src := Source{URL: "https://host/a%2Fb"}
	d := (&Set{layers: []*Layer{caps, allow}}).CheckSource(src)
	if d == nil || d.Rule != "[sources] allow" || !strings.Contains(d.Reason, "%2F") {
		t.Errorf("got %+v, want a refusal by [sources] allow naming %%2F", d)
	}
	if d := (&Set{layers: []*Layer{caps}}).CheckSource(src); d != nil {
		t.Errorf("a policy without source rules refused: %+v", d)
	}
}

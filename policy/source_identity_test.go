package policy

import (
	"strings"
	"testing"
)

const (
	commitA = "0123456789abcdef0123456789abcdef01234567"
	commitB = "89abcdef0123456789abcdef0123456789abcdef"
)

// A source rule names a repository, and may pin one commit of it: a
// source passes only at that commit, before it is known only as a
// candidate to judge again, and a deny pinned to a commit refuses that
// commit alone.
func TestSourceRulePinnedToCommit(t *testing.T) {
	l, err := Parse("p.toml", []byte(`[sources]
allow = ["github.com/acme/fledge-plugin-x@`+strings.ToUpper(commitA)+`", "github.com/acme/fledge-plugin-y"]
deny = ["github.com/acme/fledge-plugin-y@`+commitB+`"]
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{l}}
	x, y := "https://github.com/acme/fledge-plugin-x", "git@github.com:ACME/fledge-plugin-y.git"
	for _, c := range []struct {
		src  Source
		deny string // "" passes; else the rule
	}{
		{Source{URL: x, Commit: commitA}, ""},
		{Source{URL: x, Commit: commitB}, "[sources] allow"},
		{Source{URL: x}, "[sources] allow"}, // a record with no commit is no commit's
		{Source{URL: x, Pending: true}, ""}, // judged again when known
		{Source{URL: "https://github.com/acme/fledge-plugin-z", Pending: true}, "[sources] allow"},
		{Source{URL: y, Commit: commitA}, ""},
		{Source{URL: y, Commit: commitB}, "[sources] deny"},
		{Source{URL: y, Pending: true}, ""},
	} {
		d := s.CheckSource(c.src)
		switch {
		case c.deny == "" && d != nil:
			t.Errorf("%+v refused: %v", c.src, d)
		case c.deny != "" && (d == nil || d.Rule != c.deny):
			t.Errorf("%+v: got %v, want refused by %s", c.src, d, c.deny)
		}
	}
	if d := s.CheckSource(Source{URL: x, Commit: commitB}); d == nil || !strings.Contains(d.Reason, "at commit "+commitB) {
		t.Errorf("the refusal does not name the commit: %v", d)
	}
}

// A rule that names a plugin by name alone, or owner/repo without a host,
// or pins anything but a full commit, is refused with what to write.
func TestSourceRuleRefusedAsAmbiguous(t *testing.T) {
	for _, c := range []struct{ rule, want string }{
		{"figma", "by its name alone"},
		{"fledge-plugin-x", "github.com/OWNER/fledge-plugin-x"},
		{"acme/fledge-plugin-x", "write the repository in full, e.g. github.com/acme/fledge-plugin-x"},
		{"github.com/acme/x@v1.2.0", "pins only a full commit hash"},
		{"github.com/acme/x@0123", "pins only a full commit hash"},
		{"github.com/acme/*@" + commitA, "commit of a glob"},
	} {
		_, err := Parse("p.toml", []byte(`[sources]
allow = ["`+c.rule+`"]
`))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "[sources] allow") {
			t.Errorf("%q: %v, want an error saying %q", c.rule, err, c.want)
		}
	}
	for _, ok := range []string{"git@github.com:acme/x", "localhost/acme/x", "127.0.0.1:8080/evil/*", "**", "*/bad-owner/**",
		"ssh://git@host/acme/x", "git.example.com:2222/x", "registry:figma", "/srv/plugins/x@" + commitA} {
		if _, err := Parse("p.toml", []byte("[sources]\ndeny = [\""+ok+"\"]\n")); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

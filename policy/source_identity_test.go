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

// A source rule may pin a tree (the source_hash fledge records): a source
// passes only with that tree, before the tree is hashed only as a
// candidate to judge again, and a deny pinned to a tree refuses that tree
// alone, once it is known.
func TestSourceRulePinnedToTree(t *testing.T) {
	treeA, treeB := "fh1:"+strings.Repeat("a1", 32), "fh1:"+strings.Repeat("b2", 32)
	l, err := Parse("p.toml", []byte(`[sources]
allow = ["github.com/acme/fledge-plugin-x@tree:`+strings.ToUpper(treeA)+`", "file:///srv/plugins/y"]
deny = ["/srv/plugins/y@tree:`+treeB+`"]
`))
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{l}}
	x, y := "https://github.com/acme/fledge-plugin-x", "/srv/plugins/y"
	for _, c := range []struct {
		src  Source
		deny string
	}{
		{Source{URL: x, Commit: commitA, Tree: treeA}, ""},
		{Source{URL: x, Commit: commitB, Tree: treeA}, ""}, // content, whatever the commit
		{Source{URL: x, Commit: commitA, Tree: treeB}, "[sources] allow"},
		{Source{URL: x, Commit: commitA}, "[sources] allow"}, // a record with no source_hash is no tree's
		{Source{URL: x, Pending: true}, ""},
		{Source{URL: x, Commit: commitA, TreePending: true}, ""},
		{Source{Path: y, Tree: treeA}, ""},
		{Source{Path: y, Tree: treeB}, "[sources] deny"},
		{Source{Path: y, TreePending: true}, ""},
	} {
		d := s.CheckSource(c.src)
		switch {
		case c.deny == "" && d != nil:
			t.Errorf("%+v refused: %v", c.src, d)
		case c.deny != "" && (d == nil || d.Rule != c.deny):
			t.Errorf("%+v: got %v, want refused by %s", c.src, d, c.deny)
		}
	}
	if d := s.CheckSource(Source{URL: x, Commit: commitA, Tree: treeB}); d == nil || !strings.Contains(d.Reason, "with tree "+treeB) {
		t.Errorf("the refusal does not name the tree: %v", d)
	}
}

// A pin that is neither a commit nor a tree hash as fledge records it is
// refused, saying what to write; an OCI digest is not taken for either.
func TestSourceRulePinRefused(t *testing.T) {
	tree := "fh1:" + strings.Repeat("0a", 32)
	for _, c := range []struct{ rule, want string }{
		{"oci://ghcr.io/acme/x@sha256:" + strings.Repeat("0a", 32), "names an OCI artifact, not what it holds"},
		{"github.com/acme/x@tree:" + strings.Repeat("0a", 32), "not a tree hash as fledge records it"},
		{"github.com/acme/x@tree:sha256:" + strings.Repeat("0a", 32), "not a tree hash as fledge records it"},
		{"github.com/acme/x@tree:fh1:0a0a", "not a tree hash as fledge records it"},
		{"github.com/acme/x@" + tree, "pins only a full commit hash or a tree hash"},
		{"github.com/acme/*@tree:" + tree, "pins a tree of a glob"},
	} {
		_, err := Parse("p.toml", []byte(`[sources]
allow = ["`+c.rule+`"]
`))
		if err == nil || !strings.Contains(err.Error(), c.want) || (!strings.Contains(err.Error(), "@tree:fh1:<64 hex digits>") && !strings.Contains(err.Error(), "without wildcards")) {
			t.Errorf("%q: %v, want an error saying %q and what to write", c.rule, err, c.want)
		}
	}
	for _, ok := range []string{"github.com/acme/x@tree:" + tree, "oci://ghcr.io/acme/x@tree:" + strings.ToUpper(tree), "file:///srv/x@tree:" + tree} {
		if _, err := Parse("p.toml", []byte("[sources]\ndeny = [\""+ok+"\"]\n")); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A revocation list's entries refuse what they match, by repository or
// by one commit of it, with the reason and issuer in the refusal; an
// unreadable list refuses everything unless on_error = "open".
func TestRevocationList(t *testing.T) {
	dir := t.TempDir()
	list := write(t, dir, "revoked.toml", `
[[revoked]]
source = "github.com/acme/fledge-plugin-bad"
reason = "exfiltrates tokens"
issuer = "sec@acme.example"
date = "2026-05-01"

[[revoked]]
source = "github.com/acme/fledge-plugin-x"
commit = "`+commitB+`"
reason = "a bad release"
issuer = "sec@acme.example"
date = "2026-05-02"
`)
	sys := write(t, dir, "policy.toml", "[revocation]\nfiles = [\""+list+"\"]\n")
	s, err := Load(Inputs{System: sys})
	if err != nil {
		t.Fatal(err)
	}
	bad := Source{URL: "git@github.com:ACME/fledge-plugin-bad.git", Commit: commitA}
	d := s.CheckSource(bad)
	if d == nil || d.File != list || !strings.Contains(d.Reason, "revoked by sec@acme.example on 2026-05-01: exfiltrates tokens") {
		t.Errorf("a revoked repository: %+v", d)
	}
	if d := s.CheckSource(Source{URL: "https://github.com/acme/fledge-plugin-bad", Pending: true}); d == nil {
		t.Error("a revoked repository passes before its commit is known")
	}
	x := Source{URL: "https://github.com/acme/fledge-plugin-x"}
	for commit, revoked := range map[string]bool{commitA: false, commitB: true} {
		x.Commit = commit
		if d := s.CheckSource(x); (d != nil) != revoked {
			t.Errorf("x at %s: %+v, want revoked %v", commit, d, revoked)
		}
	}
	x.Commit, x.Pending = "", true
	if d := s.CheckSource(x); d != nil {
		t.Errorf("x before its commit is known is refused by a commit's entry: %v", d)
	}
	if r := s.Revoked(Source{URL: "https://github.com/acme/fledge-plugin-x", Commit: commitB}); r == nil || r.Issuer != "sec@acme.example" || r.Commit != commitB {
		t.Errorf("Revoked: %+v", r)
	}

	// Unreadable: closed refuses everything, open ignores the list.
	missing := filepath.Join(dir, "gone.toml")
	for onError, refused := range map[string]bool{"": true, "closed": true, "open": false} {
		body := "[revocation]\nfiles = [\"" + missing + "\"]\n"
		if onError != "" {
			body += "on_error = \"" + onError + "\"\n"
		}
		s, err := Load(Inputs{System: write(t, dir, "p-"+onError+".toml", body)})
		if err != nil {
			t.Fatal(err)
		}
		d := s.CheckSource(Source{URL: "https://github.com/acme/fledge-plugin-good", Commit: commitA})
		if (d != nil) != refused || (refused && (d.Rule != "[revocation] on_error" || !strings.Contains(d.Reason, "does not exist"))) {
			t.Errorf("on_error %q: %+v, want refused %v", onError, d, refused)
		}
		if len(s.RevocationErrors()) != 1 {
			t.Errorf("on_error %q: errors %v", onError, s.RevocationErrors())
		}
	}
	os.WriteFile(list, []byte("[[revoked]]\nsource = \"fledge-plugin-bad\"\n"), 0o644)
	if s, _ := Load(Inputs{System: sys}); len(s.RevocationErrors()) != 1 || !strings.Contains(s.RevocationErrors()[0].Err.Error(), "by its name alone") {
		t.Errorf("a list naming a plugin by name alone: %v", s.RevocationErrors())
	}
	for _, bad := range []string{"[revocation]\nurls = [\"http://x.example/r.toml\"]\n", "[revocation]\nfiles = [\"rel.toml\"]\n", "[revocation]\nttl = \"soon\"\n", "[revocation]\non_error = \"maybe\"\n"} {
		if _, err := Parse("p.toml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "[revocation]") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// A revocation entry may name one tree (source = "…@tree:fh1:…"): that
// content is refused once its hash is known, at any commit, and other
// content of the repository is not.
func TestRevocationOfATree(t *testing.T) {
	dir := t.TempDir()
	tree := "fh1:" + strings.Repeat("c3", 32)
	list := write(t, dir, "revoked.toml", `
[[revoked]]
source = "github.com/acme/fledge-plugin-x@tree:`+tree+`"
reason = "a tampered tree"
issuer = "sec@acme.example"
`)
	s, err := Load(Inputs{System: write(t, dir, "policy.toml", "[revocation]\nfiles = [\""+list+"\"]\n")})
	if err != nil {
		t.Fatal(err)
	}
	x := Source{URL: "https://github.com/acme/fledge-plugin-x", Commit: commitA}
	for _, c := range []struct {
		tree    string
		pending bool
		revoked bool
	}{{tree, false, true}, {"fh1:" + strings.Repeat("d4", 32), false, false}, {"", true, false}} {
		x.Tree, x.TreePending = c.tree, c.pending
		if d := s.CheckSource(x); (d != nil) != c.revoked || (c.revoked && !strings.Contains(d.Reason, "a tampered tree")) {
			t.Errorf("tree %q (pending %v): %+v, want revoked %v", c.tree, c.pending, d, c.revoked)
		}
	}
}

package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestProvenanceRequire(t *testing.T) {
	all, err := Parse("/etc/fledge/policy.toml", []byte(`
[provenance]
require = "signed"
[provenance.tiers]
unverified = "signed-tag"
[[provenance.sources]]
match = "github.com/acme/*"
require = "signed-tag"
`))
	if err != nil {
		t.Fatal(err)
	}
	withKeys, err := Parse("/etc/fledge/policy.toml", []byte("[provenance]\nallowed_signers = [\"keys/allowed\"]\nrequire = \"signed\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	adminFile := filepath.Join("/etc/fledge", "keys", "allowed")
	other := Source{URL: "https://github.com/other/p"}
	acme := Source{URL: "git@github.com:acme/p.git"}
	tag := Signature{Level: RequireSignedTag, Signer: "SHA256:k", VouchedBy: "/home/u/allowed"}
	commit := Signature{Level: RequireSignedCommit, Signer: "SHA256:k", VouchedBy: "/home/u/allowed"}
	firstUse := Signature{Level: RequireSignedTag, Signer: "SHA256:k"}
	for _, c := range []struct {
		name   string
		layer  *Layer
		src    Source
		tier   string
		sig    Signature
		rule   string
		reason string
	}{
		{"signed tag", all, other, "team", tag, "", ""},
		{"signed commit", all, other, "team", commit, "", ""},
		{"unsigned", all, other, "team", Signature{Level: RequireUnsigned}, "[provenance] require", "it is unsigned"},
		{"first use is not trust", all, other, "team", firstUse, "[provenance] require", "is in no allowed_signers file"},
		{"tier wants a tag", all, other, "unverified", commit, "[provenance.tiers] unverified", "only a signed-commit"},
		{"pattern wants a tag", all, acme, "team", commit, `[provenance] sources match = "github.com/acme/*"`, "wants a signed tag"},
		{"pattern met", all, acme, "team", tag, "", ""},
		{"the user's key does not meet the admin's rule", withKeys, other, "team", tag, "[provenance] require", "in none of the policy's allowed_signers (" + adminFile + ")"},
		{"the admin's key does", withKeys, other, "team", Signature{Level: RequireSignedCommit, Signer: "k", VouchedBy: adminFile}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := (&Set{layers: []*Layer{c.layer}}).CheckProvenance(c.src, c.tier, c.sig)
			if c.rule == "" {
				if d != nil {
					t.Fatalf("refused: %s", d.Text())
				}
				return
			}
			if d == nil || d.Rule != c.rule || !strings.Contains(d.Reason, c.reason) || d.Item != ItemProvenance {
				t.Fatalf("got %+v, want rule %q and %q", d, c.rule, c.reason)
			}
		})
	}
	if got := (&Set{layers: []*Layer{all, withKeys}}).AllowedSigners(); len(got) != 1 || got[0] != adminFile {
		t.Errorf("AllowedSigners = %v", got)
	}
}

func TestProvenanceRulesFailClosed(t *testing.T) {
	for body, want := range map[string]string{
		"[provenance]\nrequire = \"sigend\"\n":                                  `[provenance] require = "sigend": want "signed"`,
		"[provenance.tiers]\nteam = \"gpg\"\n":                                  `[provenance] tiers.team = "gpg"`,
		"[[provenance.sources]]\nmatch = \"\"\nrequire = \"signed\"\n":          "an empty pattern",
		"[provenance]\nallowed_signers = [\"\"]\n":                              "an empty path",
		"[provenance]\nallowed_signer = [\"x\"]\n":                              "unknown key provenance.allowed_signer",
		"[[provenance.sources]]\nmatch = \"github.com/a/*\"\nrequire = \"x\"\n": `sources[0].require = "x"`,
	} {
		if _, err := Parse("p.toml", []byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", body, err, want)
		}
	}
}

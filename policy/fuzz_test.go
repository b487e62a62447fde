package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
)

// Any policy file either fails to parse with an InvalidError naming it, or
// parses into a layer every check can use.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		example,
		"[sources]\ndeny = [\"registry:x*\", \"git@github.com:o/*\", \"/srv/**\", \"C:\\\\p\\\\*\"]\n",
		"[trust]\nowners = []\n[hooks]\nlocal = true\nteam = false\n",
		"[pins]\nrequire = \"commit\"\nmin_tag_age = \"0.5d\"\n",
		"[capabilities]\nlocal = [\"filesystem\", \"NETWORK\"]\n",
		"[policy]\n", "", "[sources\n",
		"[sources]\nallow = [\"github.com/a/x@tree:fh1:" + strings.Repeat("0f", 32) + "\", \"oci://r.example/a/x@sha256:00\", \"/srv/x@tree:\"]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse("p.toml", data)
		if err != nil {
			if _, ok := err.(*InvalidError); !ok {
				t.Fatalf("not an InvalidError: %T %v", err, err)
			}
			return
		}
		s := &Set{layers: []*Layer{l}}
		for _, tier := range append(tiers(), "") {
			for _, it := range []string{"exec", "store", "metadata", "network", "filesystem", ItemHooks} {
				s.Allows(tier, it)
			}
			s.Narrow(tier, manifest.Capabilities{Exec: true, Filesystem: "project"}, true)
		}
		for _, src := range []Source{{URL: "https://github.com/o/r"}, {URL: "file:///srv/x"}, {Path: "/srv/x"}, {Registry: "x"}, {}} {
			s.CheckSource(src)
		}
		for _, k := range []string{"tag", "branch", "commit", "default", "constraint", ""} {
			s.CheckPin(k, "x")
		}
		s.CheckTagAge("v1", time.Unix(0, 0), time.Now())
		s.Trusted([]string{"a", "B"})
		s.Effective()
	})
}

// Any revocation list either fails to parse with an error naming it, or
// parses into entries every source can be judged against; and a policy
// with the fleet tables parses or fails as any other.
func FuzzParseRevocations(f *testing.F) {
	for _, seed := range []string{
		"[[revoked]]\nsource = \"github.com/acme/fledge-plugin-bad\"\nreason = \"r\"\nissuer = \"i\"\ndate = \"2026-05-01\"\n",
		"[[revoked]]\nsource = \"git@github.com:acme/x\"\ncommit = \"0123456789abcdef0123456789abcdef01234567\"\n",
		"[[revoked]]\nsource = \"/srv/plugins/*\"\ndate = \"2026-05-01T10:00:00Z\"\n",
		"[[revoked]]\nsource = \"figma\"\n", "[[revoked]]\n", "", "[[revoked\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ParseRevocations("r.toml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "r.toml") {
				t.Fatalf("an error that does not name the list: %v", err)
			}
			return
		}
		s := &Set{revoked: rs}
		for _, src := range []Source{{URL: "https://github.com/acme/x", Commit: "0123456789abcdef0123456789abcdef01234567"}, {Path: "/srv/plugins/x"}, {URL: "https://github.com/acme/x", Pending: true}, {}} {
			s.CheckSource(src)
			s.Revoked(src)
		}
		if _, err := Parse("p.toml", append([]byte("[[required]]\nsource = \"acme/x@v1\"\ngrant = [\"store\"]\n[protection]\nrequire = true\n"), data...)); err != nil {
			if _, ok := err.(*InvalidError); !ok {
				t.Fatalf("not an InvalidError: %T %v", err, err)
			}
		}
	})
}

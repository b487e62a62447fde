package policy

import (
	"strings"
	"testing"
)

// TestToolRules: [tools] allow and deny narrow layer by layer, match a
// tool by any of its names, and a bad pattern fails the file.
func TestToolRules(t *testing.T) {
	admin, err := Parse("/etc/fledge/policy.toml", []byte("[tools]\nallow = [\"git.*\", \"lint\"]\ndeny = [\"git.push\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	user, err := parse("config.toml", "policy.", []byte("[policy.tools]\nallow = [\"*\"]\ndeny = [\"lint\"]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{layers: []*Layer{admin, user}}
	for names, want := range map[string]string{
		"status,git.status,fledge-plugin-git.status": "",
		"push,git.push,fledge-plugin-git.push":       "[tools] deny",
		"lint,x.lint":                                "[policy.tools] deny",
		"format,x.format":                            "[tools] allow",
	} {
		d := s.OffersTool(strings.Split(names, ","))
		switch {
		case want == "" && d != nil:
			t.Errorf("%s: refused by %s", names, d.Text())
		case want != "" && (d == nil || d.Rule != want):
			t.Errorf("%s: %+v, want refused by %s", names, d, want)
		}
	}
	for _, bad := range []string{"[tools]\nallow = [\"[x\"]\n", "[tools]\ndeny = [\"\"]\n", "[tools]\ndenied = []\n"} {
		if _, err := Parse("p.toml", []byte(bad)); err == nil {
			t.Errorf("%q was taken", bad)
		}
	}
	e := s.Effective()
	if len(e.ToolAllow) != 2 || len(e.ToolDeny) != 2 || e.ToolDeny[0].Pattern != "git.push" {
		t.Errorf("effective %+v %+v", e.ToolAllow, e.ToolDeny)
	}
}

// A config.toml whose only policy is [policy.tools] is a layer: its tool
// rules apply (Load skipped it as empty before).
func TestToolRulesAloneInConfig(t *testing.T) {
	s, err := Load(Inputs{ConfigFile: "config.toml", Config: []byte("[policy.tools]\ndeny = [\"lint\"]\n")})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.OffersTool([]string{"lint", "x.lint"}); d == nil || d.Rule != "[policy.tools] deny" {
		t.Errorf("lint: %+v, want refused by [policy.tools] deny", d)
	}
}

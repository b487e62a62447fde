package policy

import (
	"strings"
	"testing"
)

// [confinement] require and allow_off only narrow: require holds when any
// layer says true, allow_off is false when any layer says so, and a
// refusal names the layer that said it.
func TestConfinementRulesOnlyNarrow(t *testing.T) {
	dir := t.TempDir()
	sys := write(t, dir, "system.toml", "[confinement]\nrequire = true\nallow_off = true\n")
	user := write(t, dir, "user.toml", "[confinement]\nrequire = false\nallow_off = false\n")
	cfg := []byte("[policy.confinement]\nrequire = false\nallow_off = true\n")
	s, err := Load(Inputs{System: sys, Env: user, ConfigFile: "config.toml", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Layers()); n != 3 {
		t.Fatalf("%d layers: a [policy.confinement] table alone is a layer", n)
	}
	if d := s.CheckConfined(""); d != nil {
		t.Errorf("enforced grants refused: %+v", d)
	}
	d := s.CheckConfined("the kernel has no Landlock")
	if d == nil || d.File != sys || d.Rule != "[confinement] require" || d.Item != ItemConfinement || !strings.Contains(d.Reason, "the kernel has no Landlock") {
		t.Errorf("require: %+v", d)
	}
	if d := s.CheckOff(""); d != nil {
		t.Errorf("nothing turned off, refused: %+v", d)
	}
	d = s.CheckOff("FLEDGE_CONFINE=off")
	if d == nil || d.File != user || d.Rule != "[confinement] allow_off" || !strings.Contains(d.Reason, "FLEDGE_CONFINE=off") {
		t.Errorf("allow_off: %+v", d)
	}
	e := s.Effective()
	if r := e.ConfineRequire; r == nil || !r.Value || r.From.File != sys {
		t.Errorf("effective require: %+v", r)
	}
	if a := e.ConfineAllowOff; a == nil || a.Value || a.From.File != user {
		t.Errorf("effective allow_off: %+v", a)
	}

	none, err := Load(Inputs{ConfigFile: "config.toml", Config: []byte("[policy.confinement]\nrequire = false\n")})
	if err != nil {
		t.Fatal(err)
	}
	if d := none.CheckConfined("confinement is off"); d != nil {
		t.Errorf("require = false refused: %+v", d)
	}
	if _, err := Parse("p.toml", []byte("[confinement]\nrequired = true\n")); err == nil || !strings.Contains(err.Error(), "unknown key confinement.required") {
		t.Errorf("a misspelt key: %v", err)
	}
}

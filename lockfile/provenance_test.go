package lockfile

import (
	"strings"
	"testing"
)

// Who signed an install round-trips through plugins.toml as a subtable of
// its entry; an entry without one (older, or the Rust fledge's) reads as
// never verified, and levels rank as the strongest first.
func TestProvenanceRoundTrips(t *testing.T) {
	p := Provenance{Level: LevelSignedTag, Signer: "SHA256:abc", Principal: "ann@example.com", Format: "ssh", VouchedBy: "/etc/allowed", Object: strings.Repeat("1", 40)}
	f := &File{}
	f.Put(Plugin{Name: "fledge-plugin-a", Source: "a/b", Provenance: &p})
	f.Put(Plugin{Name: "fledge-plugin-b", Source: "a/c"})
	data, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "[plugins.provenance]") {
		t.Errorf("no provenance subtable in:\n%s", data)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := back.Get("fledge-plugin-a")
	b, _ := back.Get("fledge-plugin-b")
	if a.Provenance == nil || *a.Provenance != p || b.Provenance != nil {
		t.Fatalf("read back %+v and %+v", a.Provenance, b.Provenance)
	}
	if !a.Provenance.Trusted() || b.Provenance.Signed() || b.Provenance.LevelOf() != LevelUnsigned {
		t.Error("Trusted, Signed or LevelOf")
	}
	if first := (&Provenance{Level: LevelSignedCommit, Signer: "k", VouchedBy: VouchedFirstUse}); first.Trusted() || !first.Signed() {
		t.Error("a first-use signer is signed and not trusted")
	}
	if !(LevelRank(LevelSignedTag) > LevelRank(LevelSignedCommit) && LevelRank(LevelSignedCommit) > LevelRank(LevelUnsigned) && LevelRank("x") < 0) {
		t.Error("LevelRank's order")
	}
}

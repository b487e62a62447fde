package policy

import (
	"os"
	"testing"
)

// The fleet example in examples/ is a valid policy, drop-in and
// revocation list.
func TestFleetExampleParses(t *testing.T) {
	data, err := os.ReadFile("../examples/fleet/policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse("examples/fleet/policy.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.required) != 2 || l.revocation == nil || l.protectRequire == nil {
		t.Errorf("the example lost a table: %+v", l)
	}
	files, _, err := DropIns("../examples/fleet/policy.toml")
	if err != nil || len(files) != 1 {
		t.Fatalf("the example's drop-ins: %v, %v", files, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data); err != nil {
			t.Error(err)
		}
	}
	list, err := os.ReadFile("../examples/fleet/revoked.toml")
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := ParseRevocations("examples/fleet/revoked.toml", list); err != nil || len(rs) != 2 {
		t.Errorf("revoked.toml: %v, %d entries", err, len(rs))
	}
}

package manifest

import "testing"

// A table or key spelled "" (found by FuzzParse: the input `[""]`) is
// reported as an unknown key with a Field that names it (quoted, `""`), so
// `validate --strict` says which key it ignores.
func TestUnknownEmptyKeyIsNamed(t *testing.T) {
	m, err := Parse([]byte("[\"\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Validate() {
		if p.Field == "" {
			t.Errorf("problem with empty field: %s", p)
		}
	}
}

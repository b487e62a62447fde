// Regression tests for bugs found by the unit-test pass, fixed since.

package manifest

import "testing"

// Was a bug: a table or key spelled "" (found by FuzzParse: the input `[""]`) is
// reported as an unknown key with an empty Field, so `validate --strict`
// prints ": unknown key, ignored" without saying which key. An empty key
// should be shown quoted, e.g. `""`.
func TestPendingUnknownEmptyKeyNamed(t *testing.T) {
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

package manifest

import (
	"errors"
	"strings"
	"testing"
)

// A type mistake is named by its key in the manifest's terms, never in
// Go's, and every one in the file shows at once.
func TestTypeErrorsNameEveryKey(t *testing.T) {
	t.Parallel()
	data := []byte(`[plugin]
name = "fledge-plugin-bad"
version = 3
keywords = ["a", 2]

[capabilities]
exec = "yes"

[[commands]]
name = "x"
binary = true
`)
	_, err := Parse(data)
	var te *TypeError
	if !errors.As(err, &te) {
		t.Fatalf("Parse: %v, want a *TypeError", err)
	}
	want := []string{
		"line 3: plugin.version: want a string in quotes, not a whole number",
		"line 4: plugin.keywords[2]: want a string in quotes, not a whole number",
		"line 7: capabilities.exec: want true or false, not a string",
		"line 11: commands[1].binary: want a string in quotes, not true/false",
	}
	if strings.Join(te.Problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(te.Problems, "\n"), strings.Join(want, "\n"))
	}
	for _, goWord := range []string{"struct field", "manifest.", "of type"} {
		if strings.Contains(err.Error(), goWord) {
			t.Errorf("%q speaks Go: %s", goWord, err)
		}
	}

	// A syntax error stays one, with its place.
	_, err = Parse([]byte("[plugin\n"))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("syntax error: %v", err)
	}
}

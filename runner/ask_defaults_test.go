package runner

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// What a plugin offers comes back to it byte for byte: a default taken
// with Enter, an option picked. What the terminal shows of them is
// escaped, never cleaned.
func TestDefaultsAndOptionsComeBackExactly(t *testing.T) {
	t.Parallel()
	hostile := "a\x1b[31mb\tc\u202ed"
	line := func(m map[string]any) string {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return "?" + string(b)
	}
	e := newEnv(t)
	dir := e.driver(allGrants,
		line(map[string]any{"type": "prompt", "id": "1", "message": "name?", "default": hostile}),
		line(map[string]any{"type": "prompt", "id": "2", "message": "typed?", "default": hostile}),
		line(map[string]any{"type": "prompt", "id": "3", "message": "n?", "default": "42", "validate": "integer"}),
		line(map[string]any{"type": "prompt", "id": "4", "message": "n?", "default": "abc", "validate": "integer"}),
		line(map[string]any{"type": "select", "id": "5", "message": "pick?", "options": []string{"plain", hostile}, "default": 1}),
		line(map[string]any{"type": "multi_select", "id": "6", "message": "many?", "options": []string{hostile, "plain"}}),
	)
	// Enter, typed text, Enter on a valid default, Enter on a default the
	// validator refuses (the scripted UI reports the refusal), then the
	// hostile option in both selects.
	e.ui.answers = []any{"", "Ada", "", "", 1, []int{0}}
	r := e.runner()
	r.Interactive = true
	if _, err := e.runWith(r, Request{Command: "drive"}); err != nil {
		t.Fatal(err)
	}
	resps := e.responses(dir)
	if len(resps) != 6 {
		t.Fatalf("responses: %v", resps)
	}
	values := []any{resps[0]["value"], resps[1]["value"], resps[2]["value"], resps[3]["type"], resps[4]["value"], resps[5]["value"]}
	want := []any{hostile, "Ada", "42", "cancel", hostile, []any{hostile}}
	if !reflect.DeepEqual(values, want) {
		t.Errorf("the plugin got %q, want %q", values, want)
	}
	esc := termsafe.Escape(hostile)
	if strings.ContainsAny(esc, "\x1b\t\u202e") {
		t.Fatalf("Escape(%q) = %q still holds what it must escape", hostile, esc)
	}
	shown := []string{esc, esc, "42", "abc", "plain|" + esc, esc + "|plain"}
	if !reflect.DeepEqual(e.ui.shown, shown) {
		t.Errorf("shown %q, want %q", e.ui.shown, shown)
	}
}

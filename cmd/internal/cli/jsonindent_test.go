package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// indentJSON must print exactly what json.Encoder with SetIndent does.
func TestIndentJSONMatchesEncoder(t *testing.T) {
	t.Parallel()
	type inner struct {
		A []string          `json:"a"`
		M map[string]any    `json:"m"`
		E struct{}          `json:"e"`
		R json.RawMessage   `json:"r"`
		P *inner            `json:"p"`
		N []map[string]bool `json:"n"`
	}
	tricky := []string{"", `"`, `\`, `\"`, `"\\"`, "{[,:]}", "a\"b\\\"c", "\n\t\r", "\u2028\u202e", "ü€😀", `\\\\`, "\x00\x1f", "<&>"}
	values := []any{
		nil, true, 12.5, "plain", []int{}, map[string]int{}, []any{[]any{}, map[string]any{}},
		inner{A: tricky, M: map[string]any{"x": []any{1, "y", nil, map[string]any{}}, "": tricky}, R: json.RawMessage(`{ "k" : [ 1 , 2 ] }`),
			P: &inner{A: []string{}, N: []map[string]bool{{}, {"t": true}}}},
		listDoc{SchemaVersion: 1, Plugins: []pluginJSON{}},
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		values = append(values, randomJSON(r, 4, tricky))
	}
	for i, v := range values {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc = json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(nil, buf.Bytes()); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("value %d:\ngot  %q\nwant %q", i, got, want.Bytes())
		}
	}
}

func randomJSON(r *rand.Rand, depth int, strs []string) any {
	switch k := r.Intn(7); {
	case depth == 0 || k == 0:
		return strs[r.Intn(len(strs))] + strings.Repeat("x", r.Intn(3))
	case k == 1:
		return r.Intn(2) == 0
	case k == 2:
		return r.Float64() * 1000
	case k == 3:
		return nil
	case k == 4:
		a := make([]any, r.Intn(4))
		for i := range a {
			a[i] = randomJSON(r, depth-1, strs)
		}
		return a
	default:
		m := map[string]any{}
		for i := r.Intn(4); i > 0; i-- {
			m[fmt.Sprint(strs[r.Intn(len(strs))], i)] = randomJSON(r, depth-1, strs)
		}
		return m
	}
}

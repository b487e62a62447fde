package runner

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/protocol"
)

// encodedLen is what the protocol's encoder makes of s: its JSON string,
// quotes not counted.
func encodedLen(t *testing.T, s string) int {
	t.Helper()
	b, err := protocol.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return len(b) - len(`""`+"\n")
}

// TestJSONPrefix: jsonPrefix measures exactly what the protocol's encoder
// writes, cuts only on UTF-8 boundaries, and keeps as much as fits.
func TestJSONPrefix(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"", "plain", "quote \" backslash \\ slash /", "\b\f\n\r\t\x00\x01\x1f\x7f",
		"<html> & é ✓ 😀", "\u2028\u2029", "bad \xff\xfe utf8 \xe2\x80", "\xed\xa0\x80",
		strings.Repeat("\x00", 40), strings.Repeat("é", 20), strings.Repeat("😀\u2028", 9),
	}
	for _, in := range inputs {
		for max := 0; max <= 6*len(in)+1; max++ {
			n := jsonPrefix([]byte(in), max)
			cost := encodedLen(t, in[:n])
			if cost > max {
				t.Fatalf("%q, %d: kept %q, which encodes in %d bytes", in, max, in[:n], cost)
			}
			if n == len(in) {
				continue
			}
			// The cut splits no rune: the kept bytes encode as they do in
			// the whole.
			if encodedLen(t, in) != cost+encodedLen(t, in[n:]) {
				t.Fatalf("%q, %d: cut %d inside a rune", in, max, n)
			}
			// The next character (a whole rune, or one invalid byte) would
			// not fit.
			_, size := utf8.DecodeRuneInString(in[n:])
			if next := encodedLen(t, in[:n+size]); next <= max {
				t.Fatalf("%q, %d: kept %d bytes, but %d would fit (%d)", in, max, n, n+size, next)
			}
		}
	}
}

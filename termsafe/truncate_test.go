package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

func TestTruncate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 4, "abc…"},
		{"añb", 2, "a…"},                                      // ñ is two bytes: never cut in half
		{"ééééé", 3, "éé…"},                                   // é, é, é, é, é: two bytes each
		{"e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301e\u0301"}, // e + combining acute: one column each
		{"e\u0301e\u0301e\u0301x", 3, "e\u0301e\u0301…"},      // the accent stays with its letter
		{"日本語テキスト", 7, "日本語…"},                                // two columns each
		{"😀x", 2, "…"},
		{"👍🏽👍🏽👍🏽", 5, "👍🏽👍🏽…"}, // an emoji with its skin tone is one cluster
		{"\x01\x02\x03\x04", 3, "\x01\x02…"},
		{"", 0, ""},
		{"x", 0, ""},
		{"ab", 1, "…"},
	} {
		got := Truncate(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if w := uniseg.StringWidth(got); w > tc.n {
			t.Errorf("Truncate(%q, %d) = %q, %d columns wide", tc.s, tc.n, got, w)
		}
	}
}

// TestTruncateHostile: a value built to be long in bytes but narrow on
// screen is still cut short.
func TestTruncateHostile(t *testing.T) {
	t.Parallel()
	zalgo := "a" + strings.Repeat("\u0301", 100000) + "b"
	if got := Truncate(zalgo, 10); len(got) > 4*10+len("…") {
		t.Errorf("Truncate kept %d bytes of combining marks", len(got))
	}
	nul := strings.Repeat("\x00", 100000)
	if got := Truncate(nul, 10); got != strings.Repeat("\x00", 9)+"…" {
		t.Errorf("Truncate(NULs, 10) = %q", got)
	}
}

// FuzzTruncate: whatever the input, Truncate keeps a prefix of it (and
// so valid UTF-8 stays valid), at most n columns and 4n bytes before the
// "…", and returns s itself when it fits.
func FuzzTruncate(f *testing.F) {
	for _, s := range []string{"héllo wörld", "日本語", "👍🏽👨‍👩‍👧", "e\u0301\u0301\u0301", "\xff\xfe\xc3", "\x1b[31mred"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = int(uint(n) % 200)
		got := Truncate(s, n)
		if got == s {
			return
		}
		kept, cut := strings.CutSuffix(got, "…")
		if n > 0 && !cut || !strings.HasPrefix(s, kept) {
			t.Fatalf("Truncate(%q, %d) = %q: not a prefix and a mark", s, n, got)
		}
		if len(kept) > 4*n {
			t.Fatalf("Truncate(%q, %d) kept %d bytes", s, n, len(kept))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q: split a character", s, n, got)
		}
	})
}

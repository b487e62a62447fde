package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello world", "hello world"},
		{"newline and tab", "a\nb\tc", "a\nb\tc"},
		{"unicode letters", "héllo — naïve 日本 🌤️", "héllo — naïve 日本 🌤️"},
		{"sgr", "\x1b[31mred\x1b[0m", "red"},
		{"cursor", "a\x1b[2Jb\x1b[1;1Hc", "abc"},
		{"osc title bel", "x\x1b]0;pwned\x07y", "xy"},
		{"osc hyperlink st", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"osc52 clipboard", "\x1b]52;c;cm0gLXJmIC8=\x07ok", "ok"},
		{"dcs", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"unterminated osc eats rest", "a\x1b]0;title", "a"},
		{"8-bit csi", "a\u009b2Jb", "ab"},
		{"8-bit osc", "a\u009d0;t\u009cb", "ab"},
		{"bidi override", "file\u202egnp.exe", "filegnp.exe"},
		{"bidi isolates", "a\u2066b\u2069c", "abc"},
		{"zero width", "pay\u200bpal\ufeff", "paypal"},
		{"bare cr", "safe\rEVIL", "safeEVIL"},
		{"crlf kept", "a\r\nb", "a\r\nb"},
		{"bell backspace", "a\x07\x08b", "ab"},
		{"del", "a\x7fb", "ab"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"line separator", "a\u2028b", "ab"},
		{"two-byte esc", "a\x1bcb", "ab"},
		{"lone esc at end", "ab\x1b", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLineFoldsWhitespace(t *testing.T) {
	if got := Line("a\nb\tc\r\nd"); got != "a b c d" {
		t.Errorf("Line = %q", got)
	}
}

func TestStyledKeepsOnlyColour(t *testing.T) {
	in := "\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[m\x1b[2J\x1b]0;t\x07\x1b[?1049h"
	want := "\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[m"
	if got := Styled(in); got != want {
		t.Errorf("Styled = %q, want %q", got, want)
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"hello", "\x1b[31mx", "\x1b]0;t\x07", "a\u202eb", "\u009b31m", "\x1bP\x1b\\",
		"make #\u009d\ntouch $HOME/pwned\n#\x07", "a\r\nb", "a\xffb", "\U000e0041"} {
		f.Add(s)
	}
	for _, s := range realText(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Text(s), Line(s)} {
			if strings.ContainsRune(out, 0x1b) {
				t.Fatalf("ESC survived in %q", out)
			}
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 out of %q", s)
			}
			for _, r := range out {
				if unsafeRune(r) && r != '\n' && r != '\t' && r != '\r' || r >= 0x80 && r <= 0x9f {
					t.Fatalf("unsafe rune %U survived in %q", r, out)
				}
			}
			if Text(out) != out {
				t.Fatalf("not idempotent: %q -> %q", out, Text(out))
			}
		}
		st := Styled(s)
		if strings.Contains(st, "\x1b]") || strings.Contains(st, "\x1bP") {
			t.Fatalf("string sequence survived Styled: %q", st)
		}
		// The check is the sanitiser's own rule: what it passes, the
		// strippers leave alone, and what they would alter, it finds.
		if FirstUnsafe(s, true) == nil && Text(s) != s {
			t.Fatalf("FirstUnsafe passed %q, which Text alters to %q", s, Text(s))
		}
		if FirstUnsafe(s, false) == nil && Line(s) != s {
			t.Fatalf("FirstUnsafe passed %q, which Line alters to %q", s, Line(s))
		}
	})
}

package termsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "cargo build --release", "cargo build --release"},
		{"newline and tab", "make\n\tinstall", `make\n\tinstall`},
		{"backslash", `sed 's/\./x/'`, `sed 's/\\./x/'`},
		{"literal backslash n", `printf 'a\nb'`, `printf 'a\\nb'`},
		{"unicode letters", "héllo 日本 🌤️", "héllo 日本 🌤️"},
		{"esc osc", "x\x1b]0;pwned\x07y", `x\x1b]0;pwned\x07y`},
		{"8-bit osc hides a payload", "make #\u009d\ntouch $HOME/pwned\n#\x07", `make #\u009d\ntouch $HOME/pwned\n#\x07`},
		{"bidi", "file\u202egnp.exe", `file\u202egnp.exe`},
		{"zero width", "pay\u200bpal", `pay\u200bpal`},
		{"tag character", "a\U000e0041", `a\U000e0041`},
		{"cr", "safe\rEVIL", `safe\rEVIL`},
		{"del", "a\x7fb", `a\x7fb`},
		{"invalid utf8", "a\xffb", `a\xffb`},
		{"replacement char is visible", "a\ufffdb", "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Escape(tt.in)
			if got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
			back, err := Unescape(got)
			if err != nil || back != tt.in {
				t.Errorf("Unescape(%q) = %q, %v; want %q", got, back, err, tt.in)
			}
		})
	}
}

func TestEscapeTextKeepsLayout(t *testing.T) {
	in := "error: C:\\Users\\me\n\tsee \x1b]8;;http://evil\x07here\u202e"
	want := "error: C:\\Users\\me\n\tsee \\x1b]8;;http://evil\\x07here\\u202e"
	if got := EscapeText(in); got != want {
		t.Errorf("EscapeText = %q, want %q", got, want)
	}
}

func TestUnescapeRejectsMalformed(t *testing.T) {
	for _, s := range []string{`a\`, `\x1`, `\u12`, `\q`, `\'`} {
		if got, err := Unescape(s); err == nil {
			t.Errorf("Unescape(%q) = %q, want an error", s, got)
		}
	}
}

func TestFirstUnsafe(t *testing.T) {
	tests := []struct {
		in        string
		multiline bool
		offset    int
		rune      rune
		text      string // part of the description
	}{
		{"make #\u009d\ntouch x", true, 6, 0x9d, "U+009D (a terminal control character) at byte 7"},
		{"make #\x1b]0;x\x07", true, 6, 0x1b, "ESC"},
		{"a\r\nb", true, 1, '\r', "carriage return"},
		{"a\nb", false, 1, '\n', "a newline"},
		{"a\tb", false, 1, '\t', "a tab"},
		{"ab\u202e", true, 2, 0x202e, "U+202E (an invisible formatting character"},
		{"a\xffb", true, 1, utf8.RuneError, "the byte 0xff, which is not UTF-8, at byte 2"},
		{"x\ue000", true, 1, 0xe000, "private-use"},
	}
	for _, tt := range tests {
		u := FirstUnsafe(tt.in, tt.multiline)
		if u == nil {
			t.Errorf("FirstUnsafe(%q) = nil", tt.in)
			continue
		}
		if u.Offset != tt.offset || u.Rune != tt.rune || !strings.Contains(u.String(), tt.text) {
			t.Errorf("FirstUnsafe(%q) = %d %U %q, want %d %U containing %q", tt.in, u.Offset, u.Rune, u.String(), tt.offset, tt.rune, tt.text)
		}
	}
	for _, s := range []string{"", "cargo build --release", "a\nb\tc", "héllo 日本 🌤️", `C:\x`, "a\ufffdb"} {
		if u := FirstUnsafe(s, true); u != nil {
			t.Errorf("FirstUnsafe(%q) = %v, want nil", s, u)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "cargo build", "a\\nb\n", "make #\u009d\ntouch x\n#\x07", "\x1b]0;t\x07", "\xff\xfe", "\\x41", "\U000e0041\u202e", "\\", "a\\\x00"} {
		f.Add(s)
	}
	for _, s := range realText(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		back, err := Unescape(e)
		if err != nil || back != s {
			t.Fatalf("Unescape(Escape(%q)) = %q, %v", s, back, err)
		}
		if u := FirstUnsafe(e, false); u != nil {
			t.Fatalf("Escape(%q) = %q still holds %v", s, e, u)
		}
		if Line(e) != e {
			t.Fatalf("the sanitiser alters Escape(%q) = %q", s, e)
		}
		et := EscapeText(s)
		if u := FirstUnsafe(et, true); u != nil {
			t.Fatalf("EscapeText(%q) = %q still holds %v", s, et, u)
		}
		if FirstUnsafe(s, false) == nil && !strings.Contains(s, `\`) && e != s {
			t.Fatalf("Escape changed safe text %q to %q", s, e)
		}
	})
}

// BenchmarkShow compares Escape with the stripper it replaces at display
// sites (Line), on a plain command and on hostile text.
func BenchmarkShow(b *testing.B) {
	inputs := map[string]string{
		"plain":   "mkdir -p bin && cargo build --release && cp target/release/x bin/x",
		"hostile": "make #\u009d\ntouch $HOME/pwned; echo $AWS_SECRET_ACCESS_KEY >$HOME/stolen\n#\x07 \u202e日本",
	}
	for name, s := range inputs {
		b.Run(name+"/Escape", func(b *testing.B) {
			for b.Loop() {
				_ = Escape(s)
			}
		})
		b.Run(name+"/Line", func(b *testing.B) {
			for b.Loop() {
				_ = Line(s)
			}
		})
	}
}

// An emoji ZWJ sequence is one picture and shows as itself; a ZWJ
// anywhere else is invisible and stays escaped, as does every other
// zero-width character next to an emoji.
func TestEscapeKeepsEmojiSequences(t *testing.T) {
	for in, want := range map[string]string{
		"dev 👩‍💻 tools":  "dev 👩‍💻 tools",
		"🏳️‍🌈":           "🏳️‍🌈",
		"🧑🏽‍💻":           "🧑🏽‍💻",
		"a\u200db":       `a\u200db`,
		"👩\u200d":        `👩\u200d`,
		"\u200d💻":        `\u200d💻`,
		"👩\u200dx":       `👩\u200dx`,
		"👩\u200b💻":       `👩\u200b💻`,
		"👩\u202e\u200d💻": `👩\u202e\u200d💻`,
		"👩\u200d\u200d💻": `👩\u200d\u200d💻`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

package termsafe

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s on one line with nothing hidden: every character the
// sanitiser would remove is written as a visible escape instead — \n, \t,
// \r, \xHH for other ASCII controls and for bytes that are not UTF-8,
// \uHHHH or \UHHHHHHHH for C1 controls, bidi, zero-width and other
// invisible characters — and a backslash is written as \\, so the form is
// unambiguous and Unescape gives back s exactly. Everything else, non-ASCII
// letters included, is unchanged.
//
// Escape is for text that matters as it is: commands that will run, names,
// versions, sources, paths, tags.
func Escape(s string) string { return escape(s, false) }

// EscapeText is Escape for messages: newlines and tabs stay as they are,
// and so do backslashes (a message is read, not decoded, and often quotes
// Windows paths or %q text). Nothing is removed: a character the sanitiser
// would remove is written as its escape.
func EscapeText(s string) string { return escape(s, true) }

func escape(s string, text bool) string {
	if plainEscaped(s, text) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	prev := rune(-1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == zwj && emojiJoined(prev, s[i+size:]):
			b.WriteRune(r) // 👩‍💻: one emoji, and it hides no text
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, rune(s[i]), 2)
		case r == '\\' && !text:
			b.WriteString(`\\`)
		case (r == '\n' || r == '\t') && text:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf && unsafeRune(r):
			writeHex(&b, `\x`, r, 2)
		case unsafeRune(r) && r <= 0xffff:
			writeHex(&b, `\u`, r, 4)
		case unsafeRune(r):
			writeHex(&b, `\U`, r, 8)
		default:
			b.WriteString(s[i : i+size])
		}
		prev = r
		i += size
	}
	return b.String()
}

// zwj is ZERO WIDTH JOINER, which emoji sequences (👩‍💻, 🏳️‍🌈) are made
// with. Elsewhere it is invisible, so it is escaped like the rest of Cf.
const zwj = 0x200d

// emojiJoined reports whether a ZWJ between prev and the start of rest
// joins two emoji: a symbol (or its variation selector or skin tone)
// before it, a symbol after. There it only draws one picture; it can
// neither hide nor reorder text.
func emojiJoined(prev rune, rest string) bool {
	next, _ := utf8.DecodeRuneInString(rest)
	if next == utf8.RuneError || prev == utf8.RuneError { // also either end of the text
		return false
	}
	before := unicode.Is(unicode.So, prev) || prev == 0xfe0f || prev >= 0x1f3fb && prev <= 0x1f3ff
	return before && unicode.Is(unicode.So, next)
}

func writeHex(b *strings.Builder, prefix string, r rune, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xf])
	}
}

// plainEscaped reports whether escape would return s unchanged, for the
// usual case of printable ASCII.
func plainEscaped(s string, text bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && (c != '\\' || text) || text && (c == '\n' || c == '\t') {
			continue
		}
		return false
	}
	return true
}

// Unescape reverses Escape: Unescape(Escape(s)) == s for every s. It
// accepts Go's escapes (\n, \t, \r, \\, \xHH, \uHHHH, \UHHHHHHHH, and the
// rest strconv.UnquoteChar knows) and rejects a malformed one.
func Unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for rest := s; rest != ""; {
		if rest[0] != '\\' {
			j := strings.IndexByte(rest, '\\')
			if j < 0 {
				j = len(rest)
			}
			b.WriteString(rest[:j])
			rest = rest[j:]
			continue
		}
		r, multibyte, tail, err := strconv.UnquoteChar(rest, 0)
		if err != nil {
			return "", fmt.Errorf("malformed escape at byte %d of %q", len(s)-len(rest), s)
		}
		if multibyte {
			b.WriteRune(r)
		} else {
			b.WriteByte(byte(r))
		}
		rest = tail
	}
	return b.String(), nil
}

// Unsafe is the first character of a string that cannot be shown as
// itself.
type Unsafe struct {
	// Offset is its byte offset in the string (from 0).
	Offset int
	// Rune is the character; utf8.RuneError for a byte that is not UTF-8.
	Rune rune
	// Byte is the byte that is not UTF-8, when Rune is utf8.RuneError.
	Byte byte
}

// String names the character, what it is and where, counting bytes from 1
// as an editor does: "U+009D (a terminal control character) at byte 7".
func (u *Unsafe) String() string {
	var what string
	switch r := u.Rune; {
	case r == utf8.RuneError:
		return fmt.Sprintf("the byte 0x%02x, which is not UTF-8, at byte %d", u.Byte, u.Offset+1)
	case r == 0x1b:
		what = "ESC, a control character that starts terminal escape sequences"
	case r == '\n':
		what = "a newline"
	case r == '\t':
		what = "a tab"
	case r == '\r':
		what = "a carriage return, a control character that lets text overwrite itself"
	case r < 0x20 || r == 0x7f || isC1(r):
		what = "a terminal control character"
	case unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029:
		what = "an invisible formatting character (bidi, zero-width or similar)"
	default:
		what = "a private-use or surrogate code point"
	}
	return fmt.Sprintf("%U (%s) at byte %d", u.Rune, what, u.Offset+1)
}

// FirstUnsafe returns the first character of s that the sanitiser would
// alter, or nil when s is shown exactly as it is: when it returns nil,
// Text(s) == s (multiline) or Line(s) == s (not multiline). With
// multiline, newlines and tabs are allowed; a carriage return never is,
// not even before a newline, since a terminal obeys it.
//
// A string that will be executed (a hook, a build command) must pass it:
// fledge shows such strings byte-exact (with Escape) or refuses them.
func FirstUnsafe(s string, multiline bool) *Unsafe {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || multiline && (c == '\n' || c == '\t') {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return &Unsafe{Offset: i, Rune: r, Byte: c}
		}
		if unsafeRune(r) {
			return &Unsafe{Offset: i, Rune: r}
		}
		i += size
	}
	return nil
}

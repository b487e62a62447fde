package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s with every escape sequence and unsafe character removed.
// Newlines and tabs survive. It is for text meant to be rendered (plugin
// output and log messages): where the text itself matters — a name, a
// source, a command — use Escape, which hides nothing.
func Text(s string) string { return clean(s, false, true) }

// Line is Text for single-line fields: newlines and tabs become spaces.
func Line(s string) string { return clean(s, false, false) }

// Styled is Text that keeps SGR colour and style sequences (ESC [ … m), for
// plugin output shown on a terminal, where colour is wanted but cursor
// movement, title changes, hyperlinks and clipboard writes are not.
func Styled(s string) string { return clean(s, true, true) }

func clean(s string, keepSGR, multiline bool) string {
	if isPlainASCII(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b { // ESC
			n, sgr := escapeLen(s[i:])
			if keepSGR && sgr {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		if isC1(r) {
			// C1 controls: CSI (0x9b), OSC (0x9d), DCS (0x90) and friends
			// introduce sequences on terminals that honour 8-bit controls.
			i += size + c1BodyLen(r, s[i+size:])
			continue
		}
		switch {
		case r == '\n' || r == '\t':
			if multiline {
				b.WriteRune(r)
			} else {
				b.WriteByte(' ')
			}
		case r == '\r':
			// Only as part of CRLF: a bare CR lets text overwrite itself.
			if multiline && i+1 < len(s) && s[i+1] == '\n' {
				b.WriteByte('\r')
			}
		case unsafeRune(r):
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isPlainASCII(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			continue
		}
		if multiline && (c == '\n' || c == '\t') {
			continue
		}
		return false
	}
	return true
}

// unsafeRune is the one classifier of characters that cannot be shown as
// themselves: C0 controls (ESC, CR, BEL, backspace, and also newline and
// tab, which each caller keeps or not), DEL, C1 controls, format characters
// (bidi controls, zero-width characters, BOM, tags), line and paragraph
// separators, and private-use and surrogate code points. The strippers
// remove them (ESC and C1 with the sequence they introduce), Escape writes
// them as escapes, and FirstUnsafe finds them, so what is refused, what is
// escaped and what is stripped never drift apart.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, isC1(r):
		return true
	case r < utf8.RuneSelf:
		return false
	case unicode.Is(unicode.Cf, r): // bidi controls, zero-width, BOM, tags
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case unicode.Is(unicode.Co, r) || unicode.Is(unicode.Cs, r):
		return true
	}
	return false
}

// IsUnsafe reports whether r cannot be shown as itself (see unsafeRune),
// for encoders outside this package that escape rather than strip, such as
// a JSON writer.
func IsUnsafe(r rune) bool { return unsafeRune(r) }

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// escapeLen returns the length of the escape sequence at the start of s
// (which begins with ESC) and whether it is an SGR sequence. An unterminated
// sequence runs to the end of s, so nothing after an ESC leaks.
func escapeLen(s string) (n int, sgr bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[': // CSI: parameters and intermediates, then a final byte
		for j := 2; j < len(s); j++ {
			c := s[j]
			if c >= 0x40 && c <= 0x7e {
				return j + 1, c == 'm' && sgrParams(s[2:j])
			}
			if c < 0x20 || c > 0x3f {
				// Not a CSI byte: end the sequence here, dropping it.
				return j, false
			}
		}
		return len(s), false
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: strings to ST or BEL
		return 2 + stringBodyLen(s[2:], s[1] == ']'), false
	default:
		// Two-byte escapes (and ESC + intermediates + final).
		j := 1
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) {
			j++
		}
		return j, false
	}
}

// stringBodyLen returns how far a control string runs: to ST (ESC \), to the
// 8-bit ST (U+009C), or, for OSC, to BEL.
func stringBodyLen(s string, bel bool) int {
	for j := 0; j < len(s); j++ {
		switch {
		case s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\':
			return j + 2
		case s[j] == 0x07 && bel:
			return j + 1
		case s[j] == 0xc2 && j+1 < len(s) && s[j+1] == 0x9c:
			return j + 2
		}
	}
	return len(s)
}

// c1BodyLen returns the length of what follows an 8-bit introducer.
func c1BodyLen(r rune, rest string) int {
	switch r {
	case 0x9b: // CSI
		for j := 0; j < len(rest); j++ {
			c := rest[j]
			if c >= 0x40 && c <= 0x7e {
				return j + 1
			}
			if c < 0x20 || c > 0x3f {
				return j
			}
		}
		return len(rest)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
		return stringBodyLen(rest, r == 0x9d)
	}
	return 0
}

func sgrParams(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= '0' && c <= '9' || c == ';' || c == ':') {
			return false
		}
	}
	return true
}

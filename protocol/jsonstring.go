package protocol

import "unicode/utf8"

// AppendString appends s as a JSON string, byte for byte as Encode (that
// is, encoding/json with HTML escaping off) writes it: quote, backslash and
// control characters escaped (\b \f \n \r \t by name), invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// EncodedPrefix returns the length of the longest prefix of s, ending on a
// UTF-8 boundary, that AppendString encodes in at most max bytes
// (quotes not counted), and that encoded length. Escapes cost what
// AppendString writes: a control or invalid byte 6 bytes, so 1 MiB of
// NUL bytes is 6 MiB of JSON.
func EncodedPrefix[T string | []byte](s T, max int) (n, cost int) {
	for i := 0; i < len(s); {
		c, size, w := s[i], 1, 1
		switch {
		case c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\':
		case c == '"', c == '\\', c == '\b', c == '\f', c == '\n', c == '\r', c == '\t':
			w = 2
		case c < utf8.RuneSelf:
			w = 6
		default:
			r, sz := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			size, w = sz, sz
			if r == utf8.RuneError && sz == 1 || r == '\u2028' || r == '\u2029' {
				w = 6
			}
		}
		if cost+w > max {
			return i, cost
		}
		cost += w
		i += size
	}
	return len(s), cost
}

package cli

import "bytes"

// indentJSON appends src, compact JSON as encoding/json writes it (one
// value and a newline), to dst indented with two spaces: byte for byte
// what json.Encoder with SetIndent("", "  ") prints, without its
// byte-at-a-time scanner, which was most of the cost of list --json with
// many plugins. Strings are copied whole.
func indentJSON(dst, src []byte) []byte {
	needIndent := false
	depth := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			dst = appendIndentLine(dst, depth)
		}
		switch c {
		case '"':
			j := stringEnd(src, i)
			dst = append(dst, src[i:j]...)
			i = j - 1
		case '{', '[':
			// An empty object or array stays {} or [].
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = appendIndentLine(dst, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				dst = appendIndentLine(dst, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// stringEnd returns the index after the closing quote of the string that
// starts at src[i], or len(src).
func stringEnd(src []byte, i int) int {
	j := i + 1
	for j < len(src) {
		q := bytes.IndexByte(src[j:], '"')
		if q < 0 {
			return len(src)
		}
		bs := bytes.IndexByte(src[j:j+q], '\\')
		if bs < 0 {
			return j + q + 1
		}
		j += bs + 2
	}
	return len(src)
}

func appendIndentLine(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for ; depth > 0; depth-- {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

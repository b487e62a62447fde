package protocol

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode decodes one line a plugin wrote into m, which it resets first. A
// flat message whose keys are spelled as Outbound's tags (a confirm, a
// prompt, a load, a log) is read without reflection (decodeFlat); anything
// else, and anything decodeFlat is not sure of, by encoding/json, which
// both agree with (FuzzDecodeFlat). scratch is reused for unescaping.
func Decode(line []byte, m *Outbound, scratch *[]byte) error {
	*m = Outbound{}
	if decodeFlat(line, m, scratch) {
		return nil
	}
	*m = Outbound{}
	return json.Unmarshal(line, m)
}

// Field bits for decodeFlat's duplicate check.
const (
	fType = 1 << iota
	fID
	fText
	fLevel
	fMessage
	fDefault
	fValidate
	fKey
	fValue
	fCommand
	fCwd
)

// decodeFlat decodes line into m when it is one flat object whose keys are
// spelled exactly as Outbound's tags, each at most once, with
// string values for string fields and plain scalars (string, number,
// true, false, null) for raw fields. ok is false for anything else
// (nested values, other keys or spellings, null for a string field, odd
// escapes, invalid UTF-8, trailing data) and m is then left partly
// filled: Decode then decodes a fresh value with encoding/json. scratch is
// reused for unescaping.
func decodeFlat(line []byte, m *Outbound, scratch *[]byte) bool {
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	seen := 0
	i++
	for {
		i = skipWS(line, i)
		if i >= len(line) || line[i] != '"' {
			return false
		}
		// A key spelled with escapes matches none of the cases below
		// and goes to encoding/json.
		key, j, ok := scanString(line, i)
		if !ok {
			return false
		}
		i = skipWS(line, j)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		i = skipWS(line, i+1)
		if i >= len(line) {
			return false
		}
		var bit int
		var str *string
		var raw *json.RawMessage
		switch string(key) {
		case "type":
			bit, str = fType, &m.Type
		case "id":
			bit, raw = fID, &m.ID
		case "text":
			bit, str = fText, &m.Text
		case "level":
			bit, str = fLevel, &m.Level
		case "message":
			bit, str = fMessage, &m.Message
		case "default":
			bit, raw = fDefault, &m.Default
		case "validate":
			bit, str = fValidate, &m.Validate
		case "key":
			bit, str = fKey, &m.Key
		case "value":
			bit, raw = fValue, &m.Value
		case "command":
			bit, str = fCommand, &m.Command
		case "cwd":
			bit, str = fCwd, &m.Cwd
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		if line[i] == '"' {
			b, j, ok := appendString((*scratch)[:0], line, i)
			if !ok {
				return false
			}
			*scratch = b
			if str != nil {
				if bit == fType {
					*str = messageType(b)
				} else {
					*str = string(b)
				}
			} else {
				*raw = append(json.RawMessage(nil), line[i:j]...)
			}
			i = j
		} else {
			if raw == nil {
				return false
			}
			j, ok := scanScalar(line, i)
			if !ok {
				return false
			}
			*raw = rawScalar(line[i:j])
			i = j
		}
		i = skipWS(line, i)
		if i >= len(line) {
			return false
		}
		if line[i] == '}' {
			break
		}
		if line[i] != ',' {
			return false
		}
		i++
	}
	return skipWS(line, i+1) == len(line)
}

// messageType returns the protocol's own constant for a known type, so
// the commonest strings are not allocated per message.
func messageType(b []byte) string {
	switch string(b) {
	case TypeOutput:
		return TypeOutput
	case TypeLog:
		return TypeLog
	case TypeProgress:
		return TypeProgress
	case TypePrompt:
		return TypePrompt
	case TypeConfirm:
		return TypeConfirm
	case TypeSelect:
		return TypeSelect
	case TypeMultiSelect:
		return TypeMultiSelect
	case TypeStore:
		return TypeStore
	case TypeLoad:
		return TypeLoad
	case TypeExec:
		return TypeExec
	case TypeMetadata:
		return TypeMetadata
	}
	return string(b)
}

// Shared copies of the commonest raw values. Nothing writes to a decoded
// message's raw fields, and a full slice expression keeps an append from
// writing into them.
var (
	rawTrue  = json.RawMessage("true")
	rawFalse = json.RawMessage("false")
	rawNull  = json.RawMessage("null")
)

// rawScalar returns a copy of a scanned scalar value.
func rawScalar(b []byte) json.RawMessage {
	switch string(b) {
	case "true":
		return rawTrue[:4:4]
	case "false":
		return rawFalse[:5:5]
	case "null":
		return rawNull[:4:4]
	}
	return append(json.RawMessage(nil), b...)
}

// scanScalar returns the index after the number or literal (true, false,
// null) at b[i].
func scanScalar(b []byte, i int) (int, bool) {
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(b[i:], []byte(lit)) {
			return i + len(lit), true
		}
	}
	return scanNumber(b, i)
}

// scanNumber returns the index after the JSON number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, bool) {
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// AppendOutputText (below) decodes the commonest line, an output message
// such as {"type":"output","text":"..."}, without reflection: floods of
// output spend most of their time here. It reports false for anything else
// or anything unusual (other keys, odd escapes, invalid UTF-8), and the
// general decoder takes over, so both always agree (FuzzOutputText).

// The two spellings of an output message that encoders write: fields in
// declaration order (a struct) or sorted (a map).
var (
	outStructHead = []byte(`{"type":"output","text":"`)
	outStructTail = []byte(`"}`)
	outMapHead    = []byte(`{"text":"`)
	outMapTail    = []byte(`","type":"output"}`)
)

// AppendOutputText appends the decoded text of output message line to dst,
// or reports false. A line spelled exactly as encoders
// write it is recognised by its head and tail; its body is then checked in
// the same pass that decodes it (an unescaped quote inside means the line
// has more fields, and the general scanner judges it).
func AppendOutputText(dst, line []byte) ([]byte, bool) {
	var body []byte
	switch {
	case len(line) >= len(outStructHead)+len(outStructTail) &&
		bytes.HasPrefix(line, outStructHead) && bytes.HasSuffix(line, outStructTail):
		body = line[len(outStructHead) : len(line)-len(outStructTail)]
	case len(line) >= len(outMapHead)+len(outMapTail) &&
		bytes.HasPrefix(line, outMapHead) && bytes.HasSuffix(line, outMapTail):
		body = line[len(outMapHead) : len(line)-len(outMapTail)]
	default:
		var ok bool
		if body, ok = fastOutputBody(line); !ok {
			return dst, false
		}
	}
	return appendUnquote(dst, body)
}

// AppendOutputTexts decodes the output messages at the start of buf, one
// a line, appending their texts to dst as AppendOutputText does for each
// line, and returns how many bytes of buf they take. It stops before the
// first line that is not whole in buf, is longer than max bytes (without
// its line feed), or is not an output message spelled exactly as encoders
// write it: AppendOutputText or Decode judge that one, so what a flood's
// lines decode to never depends on how they arrive (FuzzOutputTexts).
// Finding each line's end, checking it and decoding it is one pass over
// its bytes.
func AppendOutputTexts(dst, buf []byte, max int) ([]byte, int) {
	used := 0
	for {
		line := buf[used:]
		if len(line) < 16 {
			return dst, used
		}
		// The heads and the map's tail are compared a word at a time:
		// with one pass over the text, comparing them is the rest.
		var i int
		var mapped bool
		switch le64(line) {
		case outMapHead8:
			if line[8] != '"' {
				return dst, used
			}
			i, mapped = len(outMapHead), true
		case outStructHead8:
			if len(line) < len(outStructHead) || string(line[8:len(outStructHead)]) != string(outStructHead[8:]) {
				return dst, used
			}
			i = len(outStructHead)
		default:
			return dst, used
		}
		// Most texts are plain, or plain and ending in a line feed: their
		// bytes are copied in one piece. Any other is unquoted.
		var out []byte
		var end int // line[end] is the text's closing quote
		switch k := skipPlain(line, i); {
		case k < len(line) && line[k] == '"':
			out, end = append(dst, line[i:k]...), k
		case k+2 < len(line) && line[k] == '\\' && line[k+1] == 'n' && line[k+2] == '"':
			out, end = append(dst, line[i:k+1]...), k+2
			out[len(out)-1] = '\n'
		default:
			var ok bool
			if out, end, ok = unquote(dst, line, i, true); !ok {
				return dst, used
			}
		}
		if mapped {
			if end+len(outMapTail) > len(line) || le64(line[end:]) != outMapTail8[0] ||
				le64(line[end+8:]) != outMapTail8[1] || line[end+16] != '"' || line[end+17] != '}' {
				return dst, used
			}
			end += len(outMapTail)
		} else {
			if end+2 > len(line) || line[end+1] != '}' {
				return dst, used
			}
			end += 2
		}
		if end < len(line) && line[end] == '\r' {
			end++
		}
		if end >= len(line) || line[end] != '\n' || end > max {
			return dst, used
		}
		dst = out
		used += end + 1
	}
}

// The heads' first words and the map tail's first two, for
// AppendOutputTexts.
var (
	outStructHead8 = le64(outStructHead)
	outMapHead8    = le64(outMapHead)
	outMapTail8    = [2]uint64{le64(outMapTail), le64(outMapTail[8:])}
)

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// fastOutputBody returns the still-escaped body of an output message's
// text, or false.
func fastOutputBody(line []byte) (body []byte, ok bool) {
	i := skipWS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil, false
	}
	var typ, txt []byte
	haveType, haveText := false, false
	i++
	for {
		i = skipWS(line, i)
		if i >= len(line) || line[i] != '"' {
			return nil, false
		}
		key, j, ok := scanString(line, i)
		if !ok {
			return nil, false
		}
		i = skipWS(line, j)
		if i >= len(line) || line[i] != ':' {
			return nil, false
		}
		i = skipWS(line, i+1)
		if i >= len(line) || line[i] != '"' {
			return nil, false
		}
		val, j, ok := scanString(line, i)
		if !ok {
			return nil, false
		}
		switch string(key) {
		case "type":
			if haveType {
				return nil, false
			}
			typ, haveType = val, true
		case "text":
			if haveText {
				return nil, false
			}
			txt, haveText = val, true
		default:
			return nil, false
		}
		i = skipWS(line, j)
		if i >= len(line) {
			return nil, false
		}
		if line[i] == '}' {
			break
		}
		if line[i] != ',' {
			return nil, false
		}
		i++
	}
	if skipWS(line, i+1) != len(line) || !haveType || !haveText || string(typ) != "output" {
		return nil, false
	}
	return txt, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// scanString returns the body of the JSON string starting at b[i] (a
// quote) and the index after its closing quote. It skips plain bytes eight
// at a time and refuses control characters; escapes and UTF-8 are only
// skipped over, for whoever decodes the body to check.
func scanString(b []byte, i int) (body []byte, next int, ok bool) {
	j := i + 1
	for {
		j = skipPlain(b, j)
		if j >= len(b) {
			return nil, 0, false
		}
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\':
			j += 2 // the backslash and the byte it escapes
		case c < 0x20:
			return nil, 0, false
		default:
			j++ // non-ASCII
		}
	}
}

// skipPlain returns the index of the first byte at or after i that is not
// plain (a quote, backslash, control character or non-ASCII byte), or
// len(b) (or i, when i is past it). Sixteen bytes and more are tested by
// indexSpecial, a block at a time.
func skipPlain(b []byte, i int) int {
	if i+16 <= len(b) {
		return i + indexSpecial(b[i:])
	}
	return skipWords(b, i)
}

// skipWords is skipPlain testing eight bytes at a time.
func skipWords(b []byte, i int) int {
	for i+8 <= len(b) {
		if m := special8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(b) && plain(b[i]) {
		i++
	}
	return i
}

// appendUnquote appends the decoded JSON string body b to dst, or reports
// false for anything the general decoder should judge: an unescaped quote
// or control character, an unknown or short escape, invalid UTF-8.
func appendUnquote(dst, b []byte) ([]byte, bool) {
	out, _, ok := unquote(dst, b, 0, false)
	return out, ok
}

// appendString decodes the JSON string whose opening quote is b[i] into
// dst, as appendUnquote does, and returns the index after its closing
// quote.
func appendString(dst, b []byte, i int) (out []byte, next int, ok bool) {
	out, end, ok := unquote(dst, b, i+1, true)
	if !ok || end >= len(b) {
		return dst, 0, false
	}
	return out, end + 1, true
}

// unquote decodes the string body that starts at b[start] into dst, up to
// the end of b or, when quoteEnds, up to the first unescaped quote, whose
// index it returns as end (len(b) when there is none). Runs of plain ASCII
// are skipped eight bytes at a time and copied in one piece.
func unquote(dst, b []byte, start int, quoteEnds bool) (out []byte, end int, ok bool) {
	out = dst
	run := start // start of the plain bytes not yet copied
	i := start
	for {
		i = skipPlain(b, i)
		if i >= len(b) {
			return append(out, b[run:]...), len(b), true
		}
		c := b[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return dst, 0, false
			}
			i += n
			continue
		}
		if c == '"' && quoteEnds {
			return append(out, b[run:i]...), i, true
		}
		if c != '\\' {
			return dst, 0, false // a control character or an unescaped quote
		}
		out = append(out, b[run:i]...)
		i++
		if i >= len(b) {
			return dst, 0, false
		}
		switch b[i] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			r, n := hex4(b, i+1)
			if n == 0 {
				return dst, 0, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, n2 := rune(-1), 0
				if i+2 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					r2, n2 = hex4(b, i+3)
				}
				if d := utf16.DecodeRune(r, r2); n2 != 0 && d != utf8.RuneError {
					i += 6
					r = d
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return dst, 0, false
		}
		i++
		run = i
	}
}

// plain reports whether c stands for itself inside a JSON string.
func plain(c byte) bool { return c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' }

// special8 flags the bytes of w (little-endian) that are not plain: below
// 0x20, a quote, a backslash or non-ASCII. Only the lowest flag is used,
// and it is exact: below it every byte is plain ASCII, so no subtraction
// borrows into it, and for an ASCII byte the high bit of b-0x20, of
// (b^'"')-1 and of (b^'\\')-1 is set exactly when b is below 0x20, a
// quote or a backslash. Non-ASCII bytes are flagged by their own high bit.
func special8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	lt := w - ones*0x20
	q := (w ^ ones*'"') - ones
	bs := (w ^ ones*'\\') - ones
	return (lt | q | bs | w) & highs
}

func hex4(b []byte, i int) (rune, int) {
	if i+4 > len(b) {
		return 0, 0
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 4
}

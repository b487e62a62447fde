package runner

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/protocol"
)

// This file holds the reflection-free halves of the message codec: a
// decoder for the flat requests plugins send most (a confirm, a prompt, a
// load) and an encoder for the answers. Each covers a strict subset of
// what encoding/json handles and produces exactly what encoding/json
// would; anything outside the subset falls back to encoding/json.

// Field bits for fastDecode's duplicate check.
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

// fastDecode decodes line into m when it is one flat object whose keys are
// spelled exactly as protocol.Outbound's tags, each at most once, with
// string values for string fields and plain scalars (string, number,
// true, false, null) for raw fields. ok is false for anything else
// (nested values, other keys or spellings, null for a string field, odd
// escapes, invalid UTF-8, trailing data) and m is then left partly
// filled: the caller decodes a fresh value with encoding/json. scratch is
// reused for unescaping.
func fastDecode(line []byte, m *protocol.Outbound, scratch *[]byte) bool {
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
	case protocol.TypeOutput:
		return protocol.TypeOutput
	case protocol.TypeLog:
		return protocol.TypeLog
	case protocol.TypeProgress:
		return protocol.TypeProgress
	case protocol.TypePrompt:
		return protocol.TypePrompt
	case protocol.TypeConfirm:
		return protocol.TypeConfirm
	case protocol.TypeSelect:
		return protocol.TypeSelect
	case protocol.TypeMultiSelect:
		return protocol.TypeMultiSelect
	case protocol.TypeStore:
		return protocol.TypeStore
	case protocol.TypeLoad:
		return protocol.TypeLoad
	case protocol.TypeExec:
		return protocol.TypeExec
	case protocol.TypeMetadata:
		return protocol.TypeMetadata
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

// appendResponse appends the line encoding/json writes for
// protocol.Response{Type: response, ID: id, Value: value} (HTML escaping
// off), for a value that is nil, a bool or a string. ok is false for any
// other value.
func appendResponse(dst []byte, id json.RawMessage, value any) ([]byte, bool) {
	if !plainID(id) {
		return dst, false
	}
	dst = append(dst, `{"type":"response","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"value":`...)
	switch v := value.(type) {
	case nil:
		dst = append(dst, "null"...)
	case bool:
		if v {
			dst = append(dst, "true"...)
		} else {
			dst = append(dst, "false"...)
		}
	case string:
		dst = appendJSONString(dst, v)
	case protocol.ExecResult:
		dst = append(dst, `{"code":`...)
		dst = strconv.AppendInt(dst, int64(v.Code), 10)
		dst = append(dst, `,"stdout":`...)
		dst = appendJSONString(dst, v.Stdout)
		dst = append(dst, `,"stderr":`...)
		dst = appendJSONString(dst, v.Stderr)
		dst = append(dst, '}')
	default:
		return dst, false
	}
	return append(dst, "}\n"...), true
}

// jsonPrefix returns the length of the longest prefix of s, ending on a
// UTF-8 boundary, that appendJSONString encodes in at most max bytes
// (quotes not counted), and that encoded length. Escapes cost what
// appendJSONString writes: a control or invalid byte 6 bytes, so 1 MiB of
// NUL bytes is 6 MiB of JSON.
func jsonPrefix[T string | []byte](s T, max int) (n, cost int) {
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

// appendCancel appends the line encoding/json writes for
// protocol.Cancel{Type: cancel, ID: id, Reason: reason} (id required).
func appendCancel(dst []byte, id json.RawMessage, reason string) ([]byte, bool) {
	if !plainID(id) {
		return dst, false
	}
	dst = append(dst, `{"type":"cancel","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"reason":`...)
	dst = appendJSONString(dst, reason)
	return append(dst, "}\n"...), true
}

// plainID reports whether id is a JSON string or number that encoding/json
// would write back byte for byte (a raw value is only compacted, and a
// scalar has nothing to compact).
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		body, next, ok := scanString(id, 0)
		return ok && next == len(id) && utf8.Valid(body) && validEscapes(body)
	}
	next, ok := scanNumber(id, 0)
	return ok && next == len(id)
}

// validEscapes reports whether every backslash in a string body starts a
// valid JSON escape.
func validEscapes(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		i++
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if _, n := hex4(b, i+1); n == 0 {
				return false
			}
			i += 4
		default:
			return false
		}
	}
	return true
}

// appendJSONString appends s quoted as encoding/json does with HTML
// escaping off (protocol.AppendString).
func appendJSONString(dst []byte, s string) []byte { return protocol.AppendString(dst, s) }

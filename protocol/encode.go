package protocol

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Encode returns message m as one protocol line: encoding/json's encoding
// of it, with HTML escaping off ("<" stays "<": neither end is a browser),
// and a newline. The host, the wasm sandbox and the SDK all encode with it,
// so each message is spelled one way: fields in the struct's order, strings
// escaped as encoding/json does (invalid UTF-8 as \ufffd; U+2028 and U+2029
// escaped).
func Encode(m any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// The encoders below write, without reflection, exactly the line Encode
// writes for the commonest messages, the answers fledge sends and the
// output a plugin sends: a flood of output spends most of its time here,
// and reflection is slow in wasm (see the package doc).

// AppendOutput appends the line Encode writes for an output message
// carrying text.
func AppendOutput(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"output","text":`...)
	dst = AppendString(dst, text)
	return append(dst, '}', '\n')
}

// AppendResponse appends the line Encode writes for Response{Type:
// response, ID: id, Value: value}, for an id that is a JSON string or
// number and a value that is nil, a bool, a string or an ExecResult. ok is
// false for anything else, and the caller encodes with Encode.
func AppendResponse(dst []byte, id json.RawMessage, value any) ([]byte, bool) {
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
		dst = AppendString(dst, v)
	case ExecResult:
		dst = append(dst, `{"code":`...)
		dst = strconv.AppendInt(dst, int64(v.Code), 10)
		dst = append(dst, `,"stdout":`...)
		dst = AppendString(dst, v.Stdout)
		dst = append(dst, `,"stderr":`...)
		dst = AppendString(dst, v.Stderr)
		dst = append(dst, '}')
	default:
		return dst, false
	}
	return append(dst, "}\n"...), true
}

// AppendCancel appends the line Encode writes for Cancel{Type: cancel, ID:
// id, Reason: reason}; ok is false unless id is a JSON string or number.
func AppendCancel(dst []byte, id json.RawMessage, reason string) ([]byte, bool) {
	if !plainID(id) {
		return dst, false
	}
	dst = append(dst, `{"type":"cancel","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"reason":`...)
	dst = AppendString(dst, reason)
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

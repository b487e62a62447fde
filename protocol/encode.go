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

// AppendInit appends the line Encode writes for m, without reflection:
// every protocol run sends one, and encoding/json's first use of a type in
// a process (building its encoder) cost a run about 0.17 ms of CPU.
// FuzzAppendInit holds it to Encode.
func AppendInit(dst []byte, m *Init) []byte {
	dst = append(dst, `{"type":`...)
	dst = AppendString(dst, m.Type)
	dst = append(dst, `,"protocol":`...)
	dst = AppendString(dst, m.Protocol)
	dst = append(dst, `,"command":`...)
	dst = AppendString(dst, m.Command)
	dst = append(dst, `,"args":`...)
	dst = appendStrings(dst, m.Args)
	dst = append(dst, `,"project":`...)
	if p := m.Project; p == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"name":`...)
		dst = AppendString(dst, p.Name)
		dst = append(dst, `,"root":`...)
		dst = AppendString(dst, p.Root)
		dst = append(dst, `,"language":`...)
		dst = AppendString(dst, p.Language)
		dst = append(dst, `,"languages":`...)
		dst = appendStrings(dst, p.Languages)
		dst = append(dst, `,"git":`...)
		if g := p.Git; g == nil {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, `{"branch":`...)
			dst = AppendString(dst, g.Branch)
			dst = append(dst, `,"dirty":`...)
			dst = strconv.AppendBool(dst, g.Dirty)
			dst = append(dst, `,"remote":`...)
			dst = AppendString(dst, g.Remote)
			dst = append(dst, `,"remote_url":`...)
			dst = AppendString(dst, g.RemoteURL)
			dst = append(dst, `,"root":`...)
			dst = AppendString(dst, g.Root)
			dst = append(dst, '}')
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"plugin":{"name":`...)
	dst = AppendString(dst, m.Plugin.Name)
	dst = append(dst, `,"version":`...)
	dst = AppendString(dst, m.Plugin.Version)
	dst = append(dst, `,"dir":`...)
	dst = AppendString(dst, m.Plugin.Dir)
	dst = append(dst, `},"fledge":{"version":`...)
	dst = AppendString(dst, m.Fledge.Version)
	c := m.Capabilities
	dst = append(dst, `},"capabilities":{"exec":`...)
	dst = strconv.AppendBool(dst, c.Exec)
	dst = append(dst, `,"store":`...)
	dst = strconv.AppendBool(dst, c.Store)
	dst = append(dst, `,"metadata":`...)
	dst = strconv.AppendBool(dst, c.Metadata)
	if c.Network {
		dst = append(dst, `,"network":true`...)
	}
	if c.Filesystem != "" {
		dst = append(dst, `,"filesystem":`...)
		dst = AppendString(dst, c.Filesystem)
	}
	return append(dst, "}}\n"...)
}

// appendStrings appends list as a JSON array of strings, null when nil,
// as encoding/json writes a []string.
func appendStrings(dst []byte, list []string) []byte {
	if list == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

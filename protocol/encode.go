package protocol

import (
	"bytes"
	"encoding/json"
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

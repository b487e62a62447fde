package runner

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/protocol"
)

var decodeCases = []string{
	`{"type":"confirm","id":"1","message":"ok?","default":true}`,
	`{"default":true,"id":"0","message":"ok?","type":"confirm"}`,
	`{ "type" : "prompt" , "id" : 7, "message" : "name \u00e9 \"q\"", "default" : "x", "validate" : "integer" } `,
	`{"type":"load","id":-1.5e+3,"key":"k"}`,
	`{"type":"store","key":"k","value":null}`,
	`{"type":"store","key":"k","value":"v\n"}`,
	`{"type":"exec","id":"6","command":"true","cwd":"sub"}`,
	`{"type":"log","level":"warn","message":"hi","text":"t"}`,
	`{"type":"conf\u0069rm","id":"1"}`,
	`{"type":"confirm","id":"1","default":false}`,
	`{"type":"confirm","id":1e5,"default":0}`,
	// Outside the subset: encoding/json decides.
	`{"type":"confirm","id":"1","id":"2"}`,
	`{"TYPE":"load","Id":"x"}`,
	`{"type":"select","id":"3","options":["a"]}`,
	`{"type":"progress","current":1,"total":2}`,
	`{"type":"load","id":{"a":1}}`,
	`{"type":"load","message":null}`,
	`{"type":"load","message":5}`,
	`{"type":"load","id":01}`,
	`{"type":"load","id":1.}`,
	`{"type":"load","id":-}`,
	`{"type":"load","id":1e}`,
	`{"type":"load","id":truex}`,
	`{"type":"load","id":tru}`,
	`{"type":"load","id":"1"} x`,
	`{"type":"load","id":"1",}`,
	`{"type":"load" "id":"1"}`,
	`{"type":"load","id":"\x"}`,
	"{\"type\":\"load\",\"id\":\"bad \xff\"}",
	"{\"type\":\"load\",\"message\":\"bad \xff\"}",
	"{\"type\":\"load\",\"message\":\"raw \x01\"}",
	`{"type":"load","message":"\ud800"}`,
	`{}`, `[]`, `{`, ``, `null`, `"s"`,
}

// TestFastDecodeAgreesWithJSON: whenever the fast decoder takes a line,
// encoding/json decodes the same message from it.
func TestFastDecodeAgreesWithJSON(t *testing.T) {
	t.Parallel()
	hits := 0
	for _, c := range decodeCases {
		if checkFastDecode(t, c) {
			hits++
		}
	}
	if hits != 12 {
		t.Errorf("fast decoder took %d lines, want 12", hits)
	}
}

func checkFastDecode(t *testing.T, line string) bool {
	var fast protocol.Outbound
	var scratch []byte
	if !fastDecode([]byte(line), &fast, &scratch) {
		return false
	}
	var want protocol.Outbound
	if err := json.Unmarshal([]byte(line), &want); err != nil {
		t.Errorf("%q: fast decoder took a line encoding/json refuses: %v", line, err)
		return true
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("%q:\nfast %+v\njson %+v", line, fast, want)
	}
	return true
}

func FuzzFastDecode(f *testing.F) {
	for _, c := range append(decodeCases, fledgeV1Lines(f)...) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, line string) { checkFastDecode(t, line) })
}

var encodeStrings = []string{
	"", "plain", "quote \" backslash \\ slash /", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"<html> & é ✓ 😀", "\u2028\u2029", "bad \xff\xfe utf8 \xe2\x80", "\xed\xa0\x80",
}

var encodeIDs = []string{`"1"`, `7`, `-1.5e+3`, `"a \u00e9 \" b"`, `"\x"`, "\"\xff\"", `{"a":1}`, ``, `1 `}

// TestAppendResponseAgreesWithJSON: the fast encoder writes exactly the
// bytes json.Encoder (HTML escaping off) writes, or declines.
func TestAppendResponseAgreesWithJSON(t *testing.T) {
	t.Parallel()
	hits := 0
	for _, id := range encodeIDs {
		values := []any{nil, true, false, []string{"x"}, 1}
		for i, s := range encodeStrings {
			values = append(values, s, protocol.ExecResult{Code: i - 2, Stdout: s, Stderr: encodeStrings[(i+1)%len(encodeStrings)]})
		}
		for _, v := range values {
			if checkResponse(t, json.RawMessage(id), v) {
				hits++
			}
		}
		for _, s := range encodeStrings {
			checkCancel(t, json.RawMessage(id), s)
		}
	}
	if want := 4 * (3 + 2*len(encodeStrings)); hits != want {
		t.Errorf("fast encoder took %d answers, want %d", hits, want)
	}
}

// jsonPrefix measures exactly what appendJSONString writes, cuts only on
// UTF-8 boundaries, and keeps as much as fits.
func TestJSONPrefix(t *testing.T) {
	t.Parallel()
	inputs := append([]string{strings.Repeat("\x00", 40), strings.Repeat("é", 20), strings.Repeat("😀\u2028", 9)}, encodeStrings...)
	for _, in := range inputs {
		for max := 0; max <= 6*len(in)+1; max++ {
			n, cost := jsonPrefix(in, max)
			if bn, bcost := jsonPrefix([]byte(in), max); bn != n || bcost != cost {
				t.Fatalf("%q, %d: string gives %d/%d, bytes %d/%d", in, max, n, cost, bn, bcost)
			}
			if enc := appendJSONString(nil, in[:n]); len(enc)-2 != cost || cost > max {
				t.Fatalf("%q, %d: prefix %q costs %d, encodes in %d", in, max, in[:n], cost, len(enc)-2)
			}
			if n == len(in) {
				continue
			}
			// The cut splits no rune: the kept bytes encode as they do in
			// the whole.
			whole, head, tail := appendJSONString(nil, in), appendJSONString(nil, in[:n]), appendJSONString(nil, in[n:])
			if string(whole) != string(head[:len(head)-1])+string(tail[1:]) {
				t.Fatalf("%q, %d: cut %d inside a rune", in, max, n)
			}
			// The next character (a whole rune, or one invalid byte) would
			// not fit.
			_, size := utf8.DecodeRuneInString(in[n:])
			if next := len(appendJSONString(nil, in[:n+size])) - 2; next <= max {
				t.Fatalf("%q, %d: kept %d bytes, but %d would fit (%d)", in, max, n, n+size, next)
			}
		}
	}
}

func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

func checkResponse(t *testing.T, id json.RawMessage, v any) bool {
	got, ok := appendResponse(nil, id, v)
	if !ok {
		return false
	}
	value := v
	if value == nil {
		value = json.RawMessage("null")
	}
	want, err := encodeJSON(protocol.Response{Type: protocol.TypeResponse, ID: id, Value: value})
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("response %q %#v:\nfast %q\njson %q (%v)", id, v, got, want, err)
	}
	return true
}

func checkCancel(t *testing.T, id json.RawMessage, reason string) {
	got, ok := appendCancel(nil, id, reason)
	if !ok {
		return
	}
	want, err := encodeJSON(protocol.Cancel{Type: protocol.TypeCancel, ID: id, Reason: reason})
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("cancel %q %q:\nfast %q\njson %q (%v)", id, reason, got, want, err)
	}
}

func FuzzAppendResponse(f *testing.F) {
	for _, id := range encodeIDs {
		for _, s := range encodeStrings {
			f.Add(id, s)
		}
	}
	f.Fuzz(func(t *testing.T, id, s string) {
		checkResponse(t, json.RawMessage(id), s)
		checkResponse(t, json.RawMessage(id), len(s)%2 == 0)
		checkCancel(t, json.RawMessage(id), s)
	})
}

// BenchmarkFastDecode: one confirm request as the benchmark plugin writes
// it, by the fast path and by encoding/json (see BenchmarkOutputText).
func BenchmarkFastDecode(b *testing.B) {
	line := []byte(`{"default":true,"id":"4711","message":"ok?","type":"confirm"}`)
	b.Run("fast", func(b *testing.B) {
		var scratch []byte
		for i := 0; i < b.N; i++ {
			var m protocol.Outbound
			if !fastDecode(line, &m, &scratch) {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var m protocol.Outbound
			if err := json.Unmarshal(line, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

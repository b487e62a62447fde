package protocol

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

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
			values = append(values, s, ExecResult{Code: i - 2, Stdout: s, Stderr: encodeStrings[(i+1)%len(encodeStrings)]})
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

// TestEncodedPrefix: EncodedPrefix measures exactly what encoding/json
// writes, cuts only on UTF-8 boundaries, and keeps as much as fits.
func TestEncodedPrefix(t *testing.T) {
	t.Parallel()
	inputs := append([]string{strings.Repeat("\x00", 40), strings.Repeat("é", 20), strings.Repeat("😀\u2028", 9)}, encodeStrings...)
	for _, in := range inputs {
		for max := 0; max <= 6*len(in)+1; max++ {
			n, cost := EncodedPrefix(in, max)
			if bn, bcost := EncodedPrefix([]byte(in), max); bn != n || bcost != cost {
				t.Fatalf("%q, %d: string gives %d/%d, bytes %d/%d", in, max, n, cost, bn, bcost)
			}
			if enc := jsonString(t, in[:n]); len(enc)-2 != cost || cost > max {
				t.Fatalf("%q, %d: prefix %q costs %d, encodes in %d", in, max, in[:n], cost, len(enc)-2)
			}
			if n == len(in) {
				continue
			}
			// The cut splits no rune: the kept bytes encode as they do in
			// the whole.
			whole, head, tail := jsonString(t, in), jsonString(t, in[:n]), jsonString(t, in[n:])
			if string(whole) != string(head[:len(head)-1])+string(tail[1:]) {
				t.Fatalf("%q, %d: cut %d inside a rune", in, max, n)
			}
			// The next character (a whole rune, or one invalid byte) would
			// not fit.
			_, size := utf8.DecodeRuneInString(in[n:])
			if next := len(jsonString(t, in[:n+size])) - 2; next <= max {
				t.Fatalf("%q, %d: kept %d bytes, but %d would fit (%d)", in, max, n, n+size, next)
			}
		}
	}
}

// jsonString is encoding/json's encoding of s (HTML escaping off).
func jsonString(t *testing.T, s string) []byte {
	t.Helper()
	b, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

func checkResponse(t *testing.T, id json.RawMessage, v any) bool {
	got, ok := AppendResponse(nil, id, v)
	if !ok {
		return false
	}
	value := v
	if value == nil {
		value = json.RawMessage("null")
	}
	want, err := Encode(Response{Type: TypeResponse, ID: id, Value: value})
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("response %q %#v:\nfast %q\njson %q (%v)", id, v, got, want, err)
	}
	return true
}

func checkCancel(t *testing.T, id json.RawMessage, reason string) {
	got, ok := AppendCancel(nil, id, reason)
	if !ok {
		return
	}
	want, err := Encode(Cancel{Type: TypeCancel, ID: id, Reason: reason})
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

// FuzzAppendOutput: the output line built by hand is exactly what Encode
// (encoding/json) makes of the same message.
func FuzzAppendOutput(f *testing.F) {
	for _, s := range append(encodeStrings, "hello\n", "<html>&", "line\u2028sep\u2029", "é✓🦀") {
		f.Add(s)
	}
	for _, l := range fledgeV1Lines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want, err := Encode(Outbound{Type: TypeOutput, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if text == "" {
			return // omitempty: an empty output is not sent
		}
		if got := AppendOutput(nil, text); !bytes.Equal(got, want) {
			t.Fatalf("AppendOutput wrote %q, encoding/json %q", got, want)
		}
	})
}

// FuzzAppendInit: the init line built by hand is exactly what Encode
// (encoding/json) makes of the same message, for each shape it takes
// (no project, a project outside a repository, one in it; nil and empty
// lists; the capabilities' omitted fields set and not). The fuzzed strings
// go in every string field; the flags pick the shape.
func FuzzAppendInit(f *testing.F) {
	for i, s := range encodeStrings {
		f.Add(s, encodeStrings[(i+1)%len(encodeStrings)], uint8(i*37))
	}
	f.Add("deploy", "/home/u/p", uint8(0xff))
	f.Fuzz(func(t *testing.T, a, b string, flags uint8) {
		bit := func(n uint) bool { return flags&(1<<n) != 0 }
		m := Init{Type: TypeInit, Protocol: Version, Command: a, Args: []string{b, a},
			Plugin: PluginInfo{Name: a, Version: b, Dir: b}, Fledge: FledgeInfo{Version: a},
			Capabilities: Capabilities{Exec: bit(0), Store: bit(1), Metadata: bit(2), Network: bit(3)}}
		if bit(4) {
			m.Capabilities.Filesystem = b
		}
		if bit(5) {
			m.Args = nil
		} else if bit(6) {
			m.Args = []string{}
		}
		if bit(7) || bit(5) {
			m.Project = &Project{Name: a, Root: b, Language: a, Languages: []string{b}}
			if bit(6) {
				m.Project.Languages = nil
			}
			if bit(7) {
				m.Project.Git = &Git{Branch: a, Dirty: bit(0), Remote: b, RemoteURL: a, Root: b}
			}
		}
		want, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendInit(nil, &m); !bytes.Equal(got, want) {
			t.Fatalf("AppendInit wrote\n%s\nencoding/json\n%s", got, want)
		}
	})
}

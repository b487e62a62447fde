package pluginsdk_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/pluginsdk"
)

// FuzzInbound feeds arbitrary bytes to the inbound decoder, twice: as the
// stream before init, and as the stream after init while a prompt waits.
// Whatever the bytes, nothing panics and every call returns (the reader is
// finite, so a missed wake-up would hang the fuzzer), with an answer, a
// cancel, or ErrClosed.
func FuzzInbound(f *testing.F) {
	for _, seed := range []string{
		initLine,
		`{"type":"response","id":"1","value":"production"}`,
		`{"type":"response","id":"1","value":true}`,
		`{"type":"response","id":"1","value":{"code":0,"stdout":"v0.9.1\nv0.9.0\n","stderr":""}}`,
		`{"type":"response","id":"1","value":null}`,
		`{"type":"cancel","reason":"user_interrupt"}`,
		`{"type":"cancel","id":"1","reason":"non_interactive"}`,
		`{"type":"cancel","id":null,"reason":"timeout"}`,
		`{"type":"response","id":1,"value":"numeric id"}`,
		`{"type":"response","id":"1","value":` + "\n" + `"split"}`,
		"\n\n   \n",
		"[]\nnull\n\"x\"\n",
		"{\"type\":\"response\",\"id\":\"\\u0031\",\"value\":\"escaped id\"}",
		"\xef\xbb\xbf{\"type\":\"response\",\"id\":\"1\",\"value\":\"bom\"}",
	} {
		f.Add([]byte(seed))
	}
	// The protocol's real messages, one at a time and as one stream.
	lines := fledgeV1Lines(f)
	for _, l := range lines {
		f.Add([]byte(l))
	}
	f.Add([]byte(strings.Join(lines, "\n") + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		before := pluginsdk.NewIO(bytes.NewReader(data), io.Discard)
		if init, err := before.RecvInit(); err == nil && init == nil {
			t.Fatal("RecvInit returned neither init nor error")
		}

		stream := append([]byte(initLine+"\n"), data...)
		p := pluginsdk.NewIO(bytes.NewReader(stream), io.Discard)
		if _, err := p.RecvInit(); err != nil {
			t.Fatalf("RecvInit with a valid init first: %v", err)
		}
		_, err := p.Prompt("q", "d", "")
		var re *pluginsdk.ResponseError
		switch {
		case err == nil, errors.Is(err, pluginsdk.ErrCanceled), errors.Is(err, pluginsdk.ErrClosed), errors.As(err, &re):
		default:
			t.Fatalf("Prompt error %v is none of the documented kinds", err)
		}
	})
}

// fledgeV1Lines are the protocol's real messages, both ways, as the
// fledge-v1 reference shows them (../shared/seeds/001, one per line).
func fledgeV1Lines(f *testing.F) []string {
	f.Helper()
	data, err := os.ReadFile("testdata/fledge-v1.ndjson")
	if err != nil {
		f.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

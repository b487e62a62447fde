package wasmhost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"
)

// FuzzStdoutWriter: whatever a plugin writes to WASI stdout, in whatever
// pieces, becomes output messages that are each one valid JSON line, and
// valid UTF-8 comes out exactly as it went in.
func FuzzStdoutWriter(f *testing.F) {
	f.Add([]byte("hello\n"), uint8(3))
	f.Add([]byte("héllo wörld ✓ 🦀\n"), uint8(1))
	f.Add([]byte("\xff\xfe not utf-8 \xe2\x9c"), uint8(2))
	f.Add(bytes.Repeat([]byte("é"), 300000), uint8(200))
	f.Add(bytes.Repeat([]byte{1}, 300000), uint8(0)) // one write, escaped six times over
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan []byte)
		go func() {
			var got []byte
			sc := bufio.NewScanner(r)
			sc.Buffer(nil, 4<<20)
			for sc.Scan() {
				if len(sc.Bytes()) > DefaultLine {
					t.Errorf("a line of %d bytes, over the protocol's limit", len(sc.Bytes()))
				}
				var m struct{ Type, Text string }
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.Type != "output" {
					t.Errorf("line %q: %v", sc.Bytes(), err)
				}
				got = append(got, m.Text...)
			}
			done <- got
		}()
		o := &outbound{f: w}
		sw := &stdoutWriter{out: o, meter: newMeter()}
		n := int(step) // the size of each write; 0: one write
		if n == 0 {
			n = len(data)
		}
		for rest := data; len(rest) > 0; {
			k := min(n, len(rest))
			if _, err := sw.Write(rest[:k]); err != nil {
				t.Fatal(err)
			}
			rest = rest[k:]
		}
		sw.flush()
		if err := o.flush(nil); err != nil {
			t.Fatal(err)
		}
		w.Close()
		got := <-done
		r.Close()
		if utf8.Valid(data) && !bytes.Equal(got, data) {
			t.Fatalf("text changed: %q -> %q", data, got)
		}
	})
}

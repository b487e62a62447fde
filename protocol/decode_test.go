package protocol

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
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

// TestDecodeFlatAgreesWithJSON: whenever the fast decoder takes a line,
// encoding/json decodes the same message from it.
func TestDecodeFlatAgreesWithJSON(t *testing.T) {
	t.Parallel()
	hits := 0
	for _, c := range decodeCases {
		if checkDecodeFlat(t, c) {
			hits++
		}
	}
	if hits != 12 {
		t.Errorf("fast decoder took %d lines, want 12", hits)
	}
}

// TestDecode: Decode reads every line as encoding/json does, whichever
// path takes it, and refuses what encoding/json refuses.
func TestDecode(t *testing.T) {
	t.Parallel()
	var scratch []byte
	m := Outbound{Type: "stale", Text: "from the line before"}
	for _, c := range append(decodeCases, fastCases...) {
		var want Outbound
		werr := json.Unmarshal([]byte(c), &want)
		err := Decode([]byte(c), &m, &scratch)
		if (err != nil) != (werr != nil) || err == nil && !reflect.DeepEqual(m, want) {
			t.Errorf("%q:\nDecode %+v (%v)\njson   %+v (%v)", c, m, err, want, werr)
		}
	}
}

func checkDecodeFlat(t *testing.T, line string) bool {
	var fast Outbound
	var scratch []byte
	if !decodeFlat([]byte(line), &fast, &scratch) {
		return false
	}
	var want Outbound
	if err := json.Unmarshal([]byte(line), &want); err != nil {
		t.Errorf("%q: fast decoder took a line encoding/json refuses: %v", line, err)
		return true
	}
	if !reflect.DeepEqual(fast, want) {
		t.Errorf("%q:\nfast %+v\njson %+v", line, fast, want)
	}
	return true
}

func FuzzDecodeFlat(f *testing.F) {
	for _, c := range append(decodeCases, fledgeV1Lines(f)...) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, line string) { checkDecodeFlat(t, line) })
}

var fastCases = []string{
	`{"type":"output","text":"hello\n"}`,
	`{"type": "output", "text": "spaced"}`,
	`{ "text" : "first" , "type" : "output" } `,
	`{"type":"output","text":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud83d x \u0041"}`,
	`{"type":"output","text":"ünïcödé ✓"}`,
	`{"type":"output","text":""}`,
	`{"type":"output","text":"a","text":"b"}`,
	`{"type":"output","text":"a","stream":true}`,
	`{"type":"log","text":"a"}`,
	`{"type":"output"}`,
	`{"type":"output","text":123}`,
	`{"type":"output","text":"bad \x escape"}`,
	`{"type":"output","text":"unterminated}`,
	`{"type":"output","text":"x"} trailing`,
	"{\"type\":\"output\",\"text\":\"raw\tcontrol\"}",
	"{\"type\":\"output\",\"text\":\"bad utf8 \xff\"}",
	`{"type":"output","text":"\u12"}`,
	`[]`, ``, `{`,
	`{"text":"sorted keys \u00e9 ✓ plain run of ascii\n","type":"output"}`,
	`{"type":"output","text":"a long plain run, then \"quotes\" and \\ and 12345678\u0001"}`,
	`{"type":"output","text":"ends with a quote inside\""}`,
	`{"type":"output","text":"a","x":"b"}`,
	`{"type":"output","text":"a\"}`,
	`{"text":"a","type":"output","type":"output"}`,
	`{"text":"a","type":"output"}  `,
	"{\"type\":\"output\",\"text\":\"raw control after eight\x01bytes\"}",
	"{\"type\":\"output\",\"text\":\"bad utf8 after a run of plain ascii \xc3\x28\"}",
	"{\"type\":\"output\",\"text\":\"a raw quote in a long run \" of text\"}",
}

// TestOutputTextAgreesWithJSON: whenever the fast path decodes a line, the
// general decoder reads the same message.
func TestOutputTextAgreesWithJSON(t *testing.T) {
	t.Parallel()
	hits := 0
	for _, c := range fastCases {
		text, ok := outputText([]byte(c))
		if !ok {
			continue
		}
		hits++
		var m Outbound
		if err := json.Unmarshal([]byte(c), &m); err != nil || m.Type != "output" || m.Text != text {
			t.Errorf("%s: fast %q, json %q (%v)", c, text, m.Text, err)
		}
	}
	if hits != 10 {
		t.Errorf("fast path took %d lines, want 10", hits)
	}
}

func FuzzOutputText(f *testing.F) {
	for _, c := range append(fastCases, fledgeV1Lines(f)...) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, line string) {
		text, ok := outputText([]byte(line))
		if !ok {
			return
		}
		var m Outbound
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Type != "output" || m.Text != text {
			t.Errorf("%q: fast %q, json %q (%v)", line, text, m.Text, err)
		}
	})
}

// BenchmarkOutputText: decoding one flood line (as the plugin writes it),
// by the fast path and by encoding/json, which it stands in for: the ratio
// of the two is what the fast path earns (see doc.go).
func BenchmarkOutputText(b *testing.B) {
	line := []byte(`{"text":"` + strings.Repeat("y", 63) + `\n","type":"output"}`)
	b.Run("fast", func(b *testing.B) {
		var dst []byte
		b.SetBytes(int64(len(line)))
		for i := 0; i < b.N; i++ {
			var ok bool
			if dst, ok = AppendOutputText(dst[:0], line); !ok {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		var m Outbound
		for i := 0; i < b.N; i++ {
			m = Outbound{}
			if err := json.Unmarshal(line, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fastOutput is AppendOutputText as a string, for the comparisons with
// encoding/json.
func outputText(line []byte) (text string, ok bool) {
	b, ok := AppendOutputText(nil, line)
	return string(b), ok
}

// TestSpecial8: the lowest byte special8 flags is the first byte that is
// not plain, for words built from the bytes that matter.
func TestSpecial8(t *testing.T) {
	t.Parallel()
	interesting := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', 0x23, 0x5b, '\\', 0x5d, 0x7f, 0x80, 0xc3, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200000; n++ {
		var b [8]byte
		for i := range b {
			b[i] = interesting[rng.IntN(len(interesting))]
			if rng.IntN(3) == 0 {
				b[i] = byte(rng.IntN(256))
			}
		}
		want := 8
		for i, c := range b {
			if !plain(c) {
				want = i
				break
			}
		}
		got := 8
		if m := special8(binary.LittleEndian.Uint64(b[:])); m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != want {
			t.Fatalf("% x: first special byte %d, want %d", b, got, want)
		}
	}
}

// TestSkipPlain: skipPlain finds the first byte that is not plain, at
// every position and from every start, in buffers of every length up to
// a few blocks (the block tests of indexSpecial, its overlapping last
// block, and the word and byte loops of shorter rests).
func TestSkipPlain(t *testing.T) {
	t.Parallel()
	interesting := []byte{0x00, 0x1f, 0x20, '!', '"', '#', '[', '\\', ']', 0x7f, 0x80, 0xc3, 0xff}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 72; n++ {
		for k := 0; k < 300; k++ {
			b := make([]byte, n)
			for i := range b {
				b[i] = 'a' + byte(rng.IntN(26))
			}
			// Up to two bytes that matter, anywhere.
			for range rng.IntN(3) {
				if n > 0 {
					b[rng.IntN(n)] = interesting[rng.IntN(len(interesting))]
				}
			}
			start := 0
			if n > 0 {
				start = rng.IntN(n + 1)
			}
			want := start
			for want < n && plain(b[want]) {
				want++
			}
			if got := skipPlain(b, start); got != want {
				t.Fatalf("%q from %d: %d, want %d", b, start, got, want)
			}
		}
	}
}

// BenchmarkDecode: one confirm request as the benchmark plugin writes
// it, by the fast path and by encoding/json (see BenchmarkOutputText).
func BenchmarkDecode(b *testing.B) {
	line := []byte(`{"default":true,"id":"4711","message":"ok?","type":"confirm"}`)
	b.Run("fast", func(b *testing.B) {
		var scratch []byte
		for i := 0; i < b.N; i++ {
			var m Outbound
			if !decodeFlat(line, &m, &scratch) {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var m Outbound
			if err := json.Unmarshal(line, &m); err != nil {
				b.Fatal(err)
			}
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

// FuzzOutputTexts: a run of lines AppendOutputTexts takes is whole lines,
// each one AppendOutputText takes, within max, with the same texts: how a
// flood arrives never changes what it decodes to.
func FuzzOutputTexts(f *testing.F) {
	for _, c := range fastCases {
		f.Add(c+"\n"+c+"\r\n"+c, 40)
		f.Add(c+"\n", 1<<20)
	}
	f.Add(`{"text":"a\n","type":"output"}`+"\n"+`{"type":"output","text":"b"}`+"\n", 30)
	f.Fuzz(func(t *testing.T, buf string, max int) {
		got, n := AppendOutputTexts([]byte("x"), []byte(buf), max)
		if n < 0 || n > len(buf) || (n > 0 && buf[n-1] != '\n') {
			t.Fatalf("%q: took %d bytes, not whole lines", buf, n)
		}
		want := []byte("x")
		for _, line := range strings.SplitAfter(buf[:n], "\n") {
			if line == "" {
				continue
			}
			line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			if len(line) > max {
				t.Fatalf("%q: took a %d-byte line past max %d", buf, len(line), max)
			}
			var ok bool
			if want, ok = AppendOutputText(want, []byte(line)); !ok {
				t.Fatalf("%q: took %q, which AppendOutputText does not", buf, line)
			}
		}
		if string(got) != string(want) {
			t.Errorf("%q: texts %q, line by line %q", buf, got, want)
		}
	})
}

// TestOutputTextsTakesAFlood: lines spelled as encoders write them are
// all taken, up to the first that is not whole or is too long.
func TestOutputTextsTakesAFlood(t *testing.T) {
	a := `{"type":"output","text":"é \"q\"\n"}` + "\n"
	b := `{"text":"y\t","type":"output"}` + "\r\n"
	buf := a + b + a + `{"type":"output","text":"cut`
	got, n := AppendOutputTexts(nil, []byte(buf), 1<<20)
	if want := "é \"q\"\ny\té \"q\"\n"; string(got) != want || n != 2*len(a)+len(b) {
		t.Errorf("took %d bytes, texts %q; want %d, %q", n, got, 2*len(a)+len(b), want)
	}
	if _, n := AppendOutputTexts(nil, []byte(b+a), len(a)-2); n != len(b) {
		t.Errorf("max %d: took %d bytes, want %d", len(a)-2, n, len(b))
	}
	// Decoding into a buffer with room allocates nothing (AllocsPerRun:
	// not in parallel).
	dst, src := make([]byte, 0, len(buf)), []byte(buf)
	if n := testing.AllocsPerRun(100, func() { dst, _ = AppendOutputTexts(dst[:0], src, 1<<20) }); n != 0 {
		t.Errorf("%v allocations decoding into a buffer with room", n)
	}
	for _, stop := range []string{`{"type":"log","message":"m"}`, `{"type":"output","text":"a","x":1}`, ` {"type":"output","text":"a"}`} {
		if _, n := AppendOutputTexts(nil, []byte(a+stop+"\n"+a), 1<<20); n != len(a) {
			t.Errorf("%s: took %d bytes, want %d", stop, n, len(a))
		}
	}
}

// BenchmarkOutputTexts: decoding a buffer of flood lines (as the plugin
// writes them) at once, per line.
func BenchmarkOutputTexts(b *testing.B) {
	line := `{"text":"` + strings.Repeat("y", 63) + `\n","type":"output"}` + "\n"
	buf := []byte(strings.Repeat(line, (64<<10)/len(line)))
	lines := len(buf) / len(line)
	var dst []byte
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		var n int
		if dst, n = AppendOutputTexts(dst[:0], buf, 1<<20); n != len(buf) {
			b.Fatalf("took %d of %d bytes", n, len(buf))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}

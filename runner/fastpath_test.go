package runner

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/protocol"
)

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

// TestFastOutputAgreesWithJSON: whenever the fast path decodes a line, the
// general decoder reads the same message.
func TestFastOutputAgreesWithJSON(t *testing.T) {
	t.Parallel()
	hits := 0
	for _, c := range fastCases {
		text, ok := fastOutput([]byte(c))
		if !ok {
			continue
		}
		hits++
		var m protocol.Outbound
		if err := json.Unmarshal([]byte(c), &m); err != nil || m.Type != "output" || m.Text != text {
			t.Errorf("%s: fast %q, json %q (%v)", c, text, m.Text, err)
		}
	}
	if hits != 10 {
		t.Errorf("fast path took %d lines, want 10", hits)
	}
}

func FuzzFastOutput(f *testing.F) {
	for _, c := range append(fastCases, fledgeV1Lines(f)...) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, line string) {
		text, ok := fastOutput([]byte(line))
		if !ok {
			return
		}
		var m protocol.Outbound
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Type != "output" || m.Text != text {
			t.Errorf("%q: fast %q, json %q (%v)", line, text, m.Text, err)
		}
	})
}

// BenchmarkOutputText: decoding one flood line (as the plugin writes it),
// by the fast path and by encoding/json, which it stands in for: the ratio
// of the two is what the fast path earns (see doc.go).
func BenchmarkOutputText(b *testing.B) {
	line := []byte(`{"text":"` + strings.Repeat("y", benchMsgSize-1) + `\n","type":"output"}`)
	b.Run("fast", func(b *testing.B) {
		var dst []byte
		b.SetBytes(int64(len(line)))
		for i := 0; i < b.N; i++ {
			var ok bool
			if dst, ok = appendOutputText(dst[:0], line); !ok {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		var m protocol.Outbound
		for i := 0; i < b.N; i++ {
			m = protocol.Outbound{}
			if err := json.Unmarshal(line, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// fastOutput is appendOutputText as a string, for the comparisons with
// encoding/json.
func fastOutput(line []byte) (text string, ok bool) {
	b, ok := appendOutputText(nil, line)
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

// BenchmarkLoopOutput: the message loop over flood lines already in
// memory: reading, decoding and writing, without the pipe.
func BenchmarkLoopOutput(b *testing.B) {
	line := `{"text":"` + strings.Repeat("y", benchMsgSize-1) + `\n","type":"output"}` + "\n"
	data := []byte(strings.Repeat(line, 10000))
	r := (&Runner{Stdout: io.Discard, Stderr: io.Discard}).withDefaults()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		s := &session{r: r, name: "p", out: bufio.NewWriterSize(io.Discard, 64<<10)}
		s.lines = newLineReader(bytes.NewReader(data), r.Limits.Line)
		s.loop()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10000), "ns/line")
}

// TestOutputLineAllocatesNothing: an output line is decoded into reused
// buffers, so a flood of them neither allocates nor grows the heap.
func TestOutputLineAllocatesNothing(t *testing.T) {
	r := (&Runner{Stdout: io.Discard, Stderr: io.Discard}).withDefaults()
	s := &session{r: r, name: "p", out: bufio.NewWriterSize(io.Discard, 64<<10)}
	for _, line := range []string{
		`{"text":"` + strings.Repeat("y", 63) + `\n","type":"output"}`,
		`{"type":"output","text":"caf\u00e9 ✓ \"quoted\"\n"}`,
		`{ "type": "output", "text": "spaced\n" }`,
	} {
		b := []byte(line)
		s.handle(b) // grows the scratch buffer once
		if n := testing.AllocsPerRun(1000, func() { s.handle(b) }); n != 0 {
			t.Errorf("%s: %v allocations a line, want 0", line, n)
		}
	}
}

package runner

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

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

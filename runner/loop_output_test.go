package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/corvidlabs/fledge-go/internal/testutil"
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

// TestOutputOrderAcrossBatches: a flood decoded a buffer at a time and
// written straight to stdout, lines decoded one at a time into the
// session's buffer, and logs (which flush it) come out in the order the
// plugin wrote them, byte for byte.
func TestOutputOrderAcrossBatches(t *testing.T) {
	t.Parallel()
	var lines []string
	var want strings.Builder
	out := func(line, text string) {
		lines = append(lines, line)
		want.WriteString(text)
	}
	for i := range 5000 {
		text := fmt.Sprintf("%05d %s\n", i, strings.Repeat("y", i%97))
		switch i % 700 {
		case 100, 101: // not spelled as encoders write it: decoded on its own
			out(fmt.Sprintf(`{ "type": "output", "text": %q }`, text), text)
		case 200: // escapes: the general decoder
			out(`{"type":"output","text":"caf\u00e9 \"q\"\t`+strconv.Itoa(i)+`\n"}`, "café \"q\"\t"+strconv.Itoa(i)+"\n")
		case 50: // flushes what the session holds
			lines = append(lines, `{"type":"log","level":"info","message":"m"}`)
		default:
			b, err := json.Marshal(map[string]string{"type": "output", "text": text})
			if err != nil {
				t.Fatal(err)
			}
			out(string(b), text)
		}
	}
	data := strings.Join(lines, "\n") + "\n"
	// However the plugin's writes cut the lines, the texts are the same.
	for name, in := range map[string]io.Reader{
		"at once":        strings.NewReader(data),
		"a byte a time":  iotest.OneByteReader(strings.NewReader(data)),
		"in 1000s":       &chunkReader{r: strings.NewReader(data), n: 1000},
		"in 70000s":      &chunkReader{r: strings.NewReader(data), n: 70000},
		"half of a read": iotest.HalfReader(strings.NewReader(data)),
	} {
		var stdout bytes.Buffer
		r := (&Runner{Stdout: &stdout, Stderr: io.Discard}).withDefaults()
		s := &session{r: r, name: "p", out: bufio.NewWriterSize(r.Stdout, 64<<10)}
		s.lines = newLineReader(in, r.Limits.Line)
		s.loop()
		s.flush()
		if got := stdout.String(); got != want.String() {
			t.Errorf("%s: stdout differs from the texts in order (%d bytes, want %d)", name, len(got), want.Len())
		}
	}
}

// chunkReader reads at most n bytes at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// TestOutputShownBeforeWaitingForARestOfLine: the texts of whole lines
// are written before fledge waits for the rest of a line the plugin has
// begun.
func TestOutputShownBeforeWaitingForARestOfLine(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	stdout := &notifyWriter{wrote: make(chan string, 16)}
	r := (&Runner{Stdout: stdout, Stderr: io.Discard}).withDefaults()
	s := &session{r: r, name: "p", out: bufio.NewWriterSize(r.Stdout, 64<<10)}
	s.lines = newLineReader(pr, r.Limits.Line)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.loop()
		s.flush()
	}()
	write := func(b string) {
		t.Helper()
		if _, err := io.WriteString(pw, b); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-stdout.wrote:
			if got != want {
				t.Fatalf("wrote %q, want %q", got, want)
			}
		case <-time.After(testutil.WaitLimit):
			t.Fatalf("%q not written while fledge waits for the rest of a line", want)
		}
	}
	write(`{"text":"one\n","type":"output"}` + "\n" + `{"text":"tw`)
	expect("one\n")
	write(`o\n","type":"output"}` + "\n")
	expect("two\n")
	pw.Close()
	select {
	case <-done:
	case <-time.After(testutil.WaitLimit):
		t.Fatal("the loop did not end at EOF")
	}
}

// notifyWriter sends each write on wrote.
type notifyWriter struct{ wrote chan string }

func (w *notifyWriter) Write(p []byte) (int, error) {
	w.wrote <- string(p)
	return len(p), nil
}

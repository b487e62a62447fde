package pluginsdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/pluginsdk/plugintest"
	"github.com/corvidlabs/fledge-go/protocol"
)

const initLine = `{"type":"init","protocol":"fledge-v1","command":"hello","args":["a b","--x"],"project":null,"plugin":{"name":"fledge-plugin-hello","version":"0.1.0","dir":"/p"},"fledge":{"version":"0.1.0"},"capabilities":{"exec":true,"store":false,"metadata":true}}`

func TestCancelThisRequest(t *testing.T) {
	t.Parallel()
	p, h := connect(t)
	got := async(func() (any, error) { return p.Prompt("Name?", "", "") })
	readLine(t, h)
	h.Cancel(id("2"), "other request: ignored")
	h.Cancel(id("1"), protocol.ReasonNonInteractive)
	r := wait(t, got)
	var ce *pluginsdk.CancelError
	if !errors.As(r.err, &ce) || !errors.Is(r.err, pluginsdk.ErrCanceled) {
		t.Fatalf("error = %v, want a CancelError matching ErrCanceled", r.err)
	}
	if *ce != (pluginsdk.CancelError{ID: "1", Reason: protocol.ReasonNonInteractive}) {
		t.Fatalf("CancelError = %+v", *ce)
	}
	if pluginsdk.ExitCode(r.err) != 1 {
		t.Errorf("ExitCode = %d, want 1 for a non-interactive cancel", pluginsdk.ExitCode(r.err))
	}
	if p.Context().Err() != nil {
		t.Fatal("canceling one request canceled the run")
	}
	// The run goes on: the next request works.
	got = async(func() (any, error) { return p.Confirm("Anyway?", true) })
	if line := readLine(t, h); !strings.Contains(line, `"id":"2"`) {
		t.Fatalf("next request line = %s, want id 2", line)
	}
	h.Respond(id("2"), true)
	if r := wait(t, got); r.err != nil || r.v != true {
		t.Fatalf("confirm after cancel = %v, %v", r.v, r.err)
	}
}

func TestCancelWholeRun(t *testing.T) {
	t.Parallel()
	for _, idField := range []string{``, `,"id":null`, `,"id":""`} {
		t.Run("id"+idField, func(t *testing.T) {
			t.Parallel()
			p, h := connect(t)
			got := async(func() (any, error) { return p.Exec("sleep 100", "", 0) })
			readLine(t, h)
			h.WriteLine(`{"type":"cancel"` + idField + `,"reason":"user_interrupt"}`)
			r := wait(t, got)
			var ce *pluginsdk.CancelError
			if !errors.As(r.err, &ce) || ce.ID != "" || ce.Reason != protocol.ReasonUserInterrupt {
				t.Fatalf("error = %#v, want a run-wide CancelError", r.err)
			}
			if pluginsdk.ExitCode(r.err) != 130 {
				t.Errorf("ExitCode = %d, want 130", pluginsdk.ExitCode(r.err))
			}
			<-p.Context().Done()
			if cause := context.Cause(p.Context()); !errors.Is(cause, pluginsdk.ErrCanceled) {
				t.Errorf("context cause = %v, want ErrCanceled", cause)
			}
			// Later requests fail at once, without writing; fire-and-forget
			// messages still go out so the plugin can say goodbye.
			if _, err := p.Confirm("more?", true); !errors.Is(err, pluginsdk.ErrCanceled) {
				t.Fatalf("request after cancel: %v", err)
			}
			go p.Output("bye\n")
			if line := readLine(t, h); line != `{"type":"output","text":"bye\n"}` {
				t.Fatalf("after cancel the host read %s", line)
			}
		})
	}
}

func TestCancelBeforeInit(t *testing.T) {
	t.Parallel()
	p := pluginsdk.NewIO(strings.NewReader("{\"type\":\"cancel\",\"reason\":\"timeout\"}\n"+initLine+"\n"), io.Discard)
	_, err := p.RecvInit()
	if !errors.Is(err, pluginsdk.ErrCanceled) {
		t.Fatalf("RecvInit = %v, want ErrCanceled", err)
	}
}

func TestResponsesOutOfOrder(t *testing.T) {
	t.Parallel()
	p, h := connect(t)
	const n = 8
	results := make([]<-chan result, n)
	for i := range n {
		key := fmt.Sprint("key", i)
		results[i] = async(func() (any, error) {
			v, _, err := p.Load(key)
			return v, err
		})
	}
	// Read every request, then answer in reverse order, each with the
	// value for its own key; duplicates and orphans in between are ignored.
	ids := map[string]string{}
	for range n {
		m := plugintest.Decode([]byte(readLine(t, h)))
		if m.Err != nil || m.Type != protocol.TypeLoad {
			t.Fatalf("bad request %s: %v", m.Raw, m.Err)
		}
		ids[m.RequestID()] = m.Key
	}
	if len(ids) != n {
		t.Fatalf("ids not unique: %v", ids)
	}
	for i := n; i >= 1; i-- {
		rid := fmt.Sprint(i)
		h.Respond(id(rid), "value of "+ids[rid])
		h.Respond(id(rid), "duplicate: must be ignored")
		h.Respond(id("999"), "orphan: must be ignored")
	}
	for i, ch := range results {
		r := wait(t, ch)
		if want := fmt.Sprint("value of key", i); r.err != nil || r.v != want {
			t.Errorf("load key%d = %v, %v; want %q", i, r.v, r.err, want)
		}
	}
}

func TestMalformedInboundLinesAreSkipped(t *testing.T) {
	t.Parallel()
	p, h := connect(t)
	got := async(func() (any, error) { return p.Prompt("Name?", "x", "") })
	readLine(t, h)
	for _, line := range []string{
		"not json at all",
		"",
		"   ",
		"[1,2,3]",
		"null",
		`"response"`,
		`{"type":"response","id":1,"value":"numeric id"}`,
		`{"type":"response","id":["1"],"value":"array id"}`,
		`{"type":"response","value":"no id"}`,
		`{"type":"response","id":"1","value":`,
		`{"type":"response","id":"1","reason":5}`,
		`{"type":"cancel","id":1,"reason":"numeric id: not a run-wide cancel"}`,
		`{"type":"cancel","id":"1","reason":7}`,
		`{"type":"init","protocol":"fledge-v1"}`,
		`{"type":"future_message","id":"1","value":"unknown type"}`,
		"\x00\xff\xfe",
		`{"type":"response","id":"1","value":"right"}`,
	} {
		if err := h.WriteLine(line); err != nil {
			t.Fatal(err)
		}
	}
	r := wait(t, got)
	if r.err != nil || r.v != "right" {
		t.Fatalf("prompt = %v, %v; want the well-formed response", r.v, r.err)
	}
	if p.Context().Err() != nil {
		t.Fatal("a malformed line canceled the run")
	}
}

func TestHostClosesStdin(t *testing.T) {
	t.Parallel()
	p, h := connect(t)
	got := async(func() (any, error) { return p.Confirm("q", true) })
	readLine(t, h)
	h.Close()
	r := wait(t, got)
	if !errors.Is(r.err, pluginsdk.ErrClosed) {
		t.Fatalf("error = %v, want ErrClosed", r.err)
	}
	if _, err := p.Metadata("env"); !errors.Is(err, pluginsdk.ErrClosed) {
		t.Fatalf("later request = %v, want ErrClosed", err)
	}
	<-p.Context().Done()
	if pluginsdk.ExitCode(r.err) != 1 {
		t.Errorf("ExitCode = %d, want 1", pluginsdk.ExitCode(r.err))
	}
}

func TestRecvInit(t *testing.T) {
	t.Parallel()
	t.Run("skips noise and reads every field", func(t *testing.T) {
		in := "\n garbage\n{\"type\":\"response\",\"id\":\"1\",\"value\":1}\n{\"type\":\"hello_v2\"}\n" + initLine + "\n"
		p := pluginsdk.NewIO(strings.NewReader(in), io.Discard)
		init, err := p.RecvInit()
		if err != nil {
			t.Fatal(err)
		}
		if init.Command != "hello" || len(init.Args) != 2 || init.Args[0] != "a b" || init.Project != nil ||
			init.Plugin.Name != "fledge-plugin-hello" || !init.Capabilities.Exec || init.Capabilities.Store || !init.Capabilities.Metadata {
			t.Fatalf("init = %+v", init)
		}
		again, err := p.RecvInit()
		if err != nil || again != init || p.Init() != init {
			t.Fatalf("second RecvInit = %p, %v; want the same init %p", again, err, init)
		}
	})
	for name, in := range map[string]string{
		"eof":             "",
		"only noise":      "nope\n{}\n",
		"wrong protocol":  `{"type":"init","protocol":"fledge-v2"}` + "\n",
		"malformed field": `{"type":"init","protocol":"fledge-v1","args":"not a list"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := pluginsdk.NewIO(strings.NewReader(in), io.Discard)
			if init, err := p.RecvInit(); err == nil {
				t.Fatalf("RecvInit = %+v, want an error", init)
			}
		})
	}
	t.Run("request before init", func(t *testing.T) {
		var out bytes.Buffer
		p := pluginsdk.NewIO(strings.NewReader(initLine+"\n"), &out)
		if _, err := p.Confirm("q", true); !errors.Is(err, pluginsdk.ErrNoInit) {
			t.Fatalf("error = %v, want ErrNoInit", err)
		}
		if out.Len() != 0 {
			t.Fatalf("wrote %q before init", out.String())
		}
	})
}

func TestConcurrentWritesStayWhole(t *testing.T) {
	t.Parallel()
	p, h := connect(t)
	const writers, each = 16, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				p.Outputf("writer %d line %d %s\n", w, i, strings.Repeat("z", 100*w))
			}
		})
	}
	seen := map[string]bool{}
	for range writers * each {
		m := plugintest.Decode([]byte(readLine(t, h)))
		if m.Err != nil || m.Type != protocol.TypeOutput {
			t.Fatalf("torn or bad line %q: %v", m.Raw, m.Err)
		}
		seen[m.Text] = true
	}
	wg.Wait()
	if len(seen) != writers*each {
		t.Fatalf("%d distinct lines, want %d", len(seen), writers*each)
	}
}

type flushRecorder struct {
	bytes.Buffer
	flushes int
}

func (f *flushRecorder) Flush() error { f.flushes++; return nil }

func TestFlushAfterEachMessage(t *testing.T) {
	t.Parallel()
	var w flushRecorder
	p := pluginsdk.NewIO(strings.NewReader(""), &w)
	p.Log(pluginsdk.LevelInfo, "a")
	p.ProgressDone()
	if w.flushes != 2 || strings.Count(w.String(), "\n") != 2 {
		t.Fatalf("%d flushes for %q, want 2", w.flushes, w.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	p := pluginsdk.NewIO(strings.NewReader(initLine+"\n"), failWriter{})
	if err := p.Output("x"); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("Output = %v, want the write error", err)
	}
	if _, err := p.RecvInit(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Prompt("q", "d", ""); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("Prompt = %v, want the write error", err)
	}
	if err := p.Send(protocol.Outbound{Type: protocol.TypeStore, Key: "k", Value: json.RawMessage(`{bad`)}); err == nil {
		t.Fatal("Send encoded an invalid raw value")
	}
}

type codedError struct{}

func (codedError) Error() string { return "coded" }
func (codedError) ExitCode() int { return 42 }

func TestExitCode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("x"), 1},
		{fmt.Errorf("wrapped: %w", codedError{}), 42},
		{&pluginsdk.CancelError{Reason: protocol.ReasonTimeout}, 130},
		{&pluginsdk.CancelError{ID: "3", Reason: protocol.ReasonUserInterrupt}, 130},
		{fmt.Errorf("ask: %w", &pluginsdk.CancelError{ID: "3", Reason: protocol.ReasonNonInteractive}), 1},
		{pluginsdk.ErrClosed, 1},
	} {
		if got := pluginsdk.ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestLongOutputIsSplit(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := pluginsdk.NewIO(strings.NewReader(""), &out)
	// 3-byte runes straddle every 128 KiB boundary; control bytes escape
	// to six bytes each, and still every line fits.
	text := strings.Repeat("é€x", 100<<10) + strings.Repeat("\x01", 200<<10) + "end\n"
	if err := p.Output(text); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, line := range lines {
		if len(line) > pluginsdk.MaxSendSize {
			t.Fatalf("line of %d bytes", len(line))
		}
		m := plugintest.Decode([]byte(line))
		if m.Err != nil || m.Type != protocol.TypeOutput || !utf8.ValidString(m.Text) {
			t.Fatalf("bad chunk: %v", m.Err)
		}
		got.WriteString(m.Text)
	}
	if len(lines) < 2 || got.String() != text {
		t.Fatalf("%d messages reassemble to %d bytes, want %d", len(lines), got.Len(), len(text))
	}
}

func TestSendRefusesOverlongLines(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := pluginsdk.NewIO(strings.NewReader(""), &out)
	if err := p.Log(pluginsdk.LevelInfo, strings.Repeat("x", pluginsdk.MaxSendSize)); err == nil {
		t.Fatal("sent a line longer than fledge accepts")
	}
	head := `{"type":"log","level":"info","message":""}`
	if err := p.Log(pluginsdk.LevelInfo, strings.Repeat("x", pluginsdk.MaxSendSize-len(head))); err != nil {
		t.Fatalf("a line of exactly MaxSendSize: %v", err)
	}
	if n := out.Len(); n != pluginsdk.MaxSendSize+1 {
		t.Fatalf("wrote %d bytes, want %d", n, pluginsdk.MaxSendSize+1)
	}
}

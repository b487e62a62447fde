package pluginsdk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/protocol"
)

const testInit = `{"type":"init","protocol":"fledge-v1","command":"hello","args":[]}`

func TestMainIO(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		run        func(*IO, *protocol.Init) error
		wantCode   int
		wantOut    string // exact stdout
		wantStderr string // substring; "" means empty
	}{
		{
			name:     "success",
			in:       testInit + "\n",
			run:      func(p *IO, init *protocol.Init) error { return p.Output("hi " + init.Command + "\n") },
			wantOut:  `{"type":"output","text":"hi hello\n"}` + "\n",
			wantCode: 0,
		},
		{
			name:     "error is logged",
			in:       testInit + "\n",
			run:      func(*IO, *protocol.Init) error { return errors.New("no deploy target") },
			wantOut:  `{"type":"log","level":"error","message":"no deploy target"}` + "\n",
			wantCode: 1,
		},
		{
			name: "request canceled for want of a human is logged",
			in:   testInit + "\n" + `{"type":"cancel","id":"1","reason":"non_interactive"}` + "\n",
			run: func(p *IO, _ *protocol.Init) error {
				_, err := p.Prompt("Name?", "", "")
				return err
			},
			wantOut: `{"type":"prompt","id":"1","message":"Name?"}` + "\n" +
				`{"type":"log","level":"error","message":"request 1 canceled by fledge: non_interactive"}` + "\n",
			wantCode: 1,
		},
		{
			name: "run-wide cancel exits 130 quietly",
			in:   testInit + "\n" + `{"type":"cancel","reason":"user_interrupt"}` + "\n",
			run: func(p *IO, _ *protocol.Init) error {
				<-p.Context().Done()
				return fmt.Errorf("stopping: %w", context.Cause(p.Context()))
			},
			wantCode: 130,
		},
		{
			name:       "no init",
			in:         "",
			run:        func(*IO, *protocol.Init) error { t.Error("run called without init"); return nil },
			wantCode:   1,
			wantStderr: "hello-test: waiting for init: fledge closed the connection",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, stderr bytes.Buffer
			p := NewIO(strings.NewReader(tt.in), &out)
			code := mainIO(p, &stderr, "hello-test", tt.run)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout:\n got %q\nwant %q", out.String(), tt.wantOut)
			}
			if tt.wantStderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestTerminalStdinIsRefused(t *testing.T) {
	t.Parallel()
	p := NewIO(strings.NewReader(testInit+"\n"), &bytes.Buffer{})
	p.tty = true
	if _, err := p.RecvInit(); err == nil || !strings.Contains(err.Error(), "started by fledge") {
		t.Fatalf("RecvInit on a terminal = %v", err)
	}
}

// The inbound bound, at a size a test can afford; the code path is the same
// as at MaxLineSize.
func TestInboundLineLimit(t *testing.T) {
	t.Parallel()
	const limit = 4 << 10
	head, tail := `{"type":"response","id":"1","value":"`, `"}`
	line := func(n int) string { return head + strings.Repeat("y", n-len(head)-len(tail)) + tail + "\n" }
	for _, tt := range []struct {
		name string
		size int
		ok   bool
	}{{"at the limit", limit, true}, {"one over", limit + 1, false}} {
		t.Run(tt.name, func(t *testing.T) {
			in := testInit + "\n" + line(tt.size) + `{"type":"response","id":"1","value":"late"}` + "\n"
			p := NewIO(strings.NewReader(in), &bytes.Buffer{})
			p.maxLine = limit
			if _, err := p.RecvInit(); err != nil {
				t.Fatal(err)
			}
			v, err := p.Prompt("q", "d", "")
			if tt.ok && (err != nil || len(v) != tt.size-len(head)-len(tail)) {
				t.Fatalf("prompt = %d bytes, %v", len(v), err)
			}
			if !tt.ok && (!errors.Is(err, ErrLineTooLong) || !errors.Is(err, ErrClosed)) {
				t.Fatalf("error = %v, want ErrLineTooLong and ErrClosed", err)
			}
		})
	}
}

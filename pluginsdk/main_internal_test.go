package pluginsdk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/runner/protocol"
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

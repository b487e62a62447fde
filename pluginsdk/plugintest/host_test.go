package plugintest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/pluginsdk/plugintest"
	"github.com/corvidlabs/fledge-go/protocol"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line  string
		ok    bool
		typ   string
		reqID string
	}{
		{`{"type":"output","text":"x"}`, true, "output", ""},
		{`{"type":"prompt","id":"7","message":"q"}`, true, "prompt", "7"},
		{`{"type":"prompt","id":7,"message":"q"}`, false, "prompt", ""},
		{`{"type":"exec","command":"ls"}`, false, "exec", ""},
		{`{"type":"future","id":3}`, true, "future", ""},
		{`{"text":"x"}`, false, "", ""},
		{`{"type":"output"} {"type":"output"}`, false, "output", ""},
		{`hello`, false, "", ""},
		{`{"type":"output","text":"` + strings.Repeat("x", pluginsdk.MaxSendSize) + `"}`, false, "", ""},
	} {
		m := plugintest.Decode([]byte(tt.line))
		if (m.Err == nil) != tt.ok || m.Type != tt.typ || m.RequestID() != tt.reqID || string(m.Raw) != tt.line {
			t.Errorf("Decode(%s) = type %q id %q err %v; want type %q id %q ok %v", tt.line, m.Type, m.RequestID(), m.Err, tt.typ, tt.reqID, tt.ok)
		}
	}
}

func TestNonInteractive(t *testing.T) {
	t.Parallel()
	msg := func(line string) plugintest.Message { return plugintest.Decode([]byte(line)) }
	for _, tt := range []struct {
		line string
		want plugintest.Reply
	}{
		{`{"type":"prompt","id":"1","message":"q","default":"d"}`, plugintest.Reply{Value: "d"}},
		{`{"type":"prompt","id":"1","message":"q","default":""}`, plugintest.Reply{Value: ""}},
		{`{"type":"prompt","id":"1","message":"q"}`, plugintest.Reply{Cancel: protocol.ReasonNonInteractive}},
		{`{"type":"confirm","id":"1","message":"q","default":true}`, plugintest.Reply{Value: true}},
		{`{"type":"confirm","id":"1","message":"q"}`, plugintest.Reply{Value: false}},
		{`{"type":"select","id":"1","message":"q","options":["a","b"],"default":1}`, plugintest.Reply{Value: "b"}},
		{`{"type":"select","id":"1","message":"q","options":["a","b"]}`, plugintest.Reply{Value: "a"}},
		{`{"type":"select","id":"1","message":"q","options":["a"],"default":5}`, plugintest.Reply{Cancel: protocol.ReasonNonInteractive}},
		{`{"type":"multi_select","id":"1","message":"q","options":["a","b"],"defaults":[1,9]}`, plugintest.Reply{Value: []string{"b"}}},
		{`{"type":"load","id":"1","key":"k"}`, plugintest.Reply{}},
		{`{"type":"exec","id":"1","command":"ls"}`, plugintest.Reply{Value: protocol.ExecResult{Code: 126, Stderr: "exec capability not granted"}}},
		{`{"type":"metadata","id":"1","keys":["env"]}`, plugintest.Reply{Value: map[string]any{}}},
	} {
		if got := plugintest.NonInteractive(msg(tt.line)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("NonInteractive(%s) = %#v, want %#v", tt.line, got, tt.want)
		}
	}
}

// TestRunNonInteractive drives a small plugin through Run with the
// NonInteractive answers, checking the transcript and the values the
// plugin saw.
func TestRunNonInteractive(t *testing.T) {
	t.Parallel()
	var seen []any
	msgs, err := plugintest.Run(protocol.Init{Command: "demo", Args: []string{"x"}}, plugintest.NonInteractive,
		func(p *pluginsdk.IO, init *protocol.Init) error {
			seen = append(seen, init.Command, init.Args[0])
			name, err := p.Prompt("Name?", "world", "")
			if err != nil {
				return err
			}
			env, err := p.Select("Env?", []string{"dev", "prod"}, "prod")
			if err != nil {
				return err
			}
			res, err := p.Exec("ls", "", time.Second)
			if err != nil {
				return err
			}
			seen = append(seen, name, env, res.Code)
			p.Output("done\n")
			_, err = p.Prompt("No default?", "", "")
			return err
		})
	if !errors.Is(err, pluginsdk.ErrCanceled) {
		t.Fatalf("Run error = %v, want the last prompt canceled", err)
	}
	if want := []any{"demo", "x", "world", "prod", 126}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("plugin saw %v, want %v", seen, want)
	}
	var types []string
	for _, m := range msgs {
		if m.Err != nil {
			t.Errorf("malformed message %s: %v", m.Raw, m.Err)
		}
		types = append(types, m.Type)
	}
	if want := []string{"prompt", "select", "exec", "output", "prompt"}; !reflect.DeepEqual(types, want) {
		t.Fatalf("transcript types = %v, want %v", types, want)
	}
}

func TestServeKeepsMalformedLines(t *testing.T) {
	t.Parallel()
	p, h, closePlugin := plugintest.Pipe()
	go func() {
		defer closePlugin()
		p.Send(protocol.Outbound{Type: protocol.TypeLoad, Key: "no id"}) // a request without id: no answer
		p.Output("after\n")
	}()
	msgs, err := h.Serve(func(m plugintest.Message) plugintest.Reply {
		if m.Type != protocol.TypeOutput {
			t.Errorf("answer saw %s", m.Raw)
		}
		return plugintest.Reply{}
	})
	h.Close()
	if err != nil || len(msgs) != 2 || msgs[0].Err == nil || msgs[1].Text != "after\n" {
		t.Fatalf("Serve = %+v, %v", msgs, err)
	}
	var raw json.RawMessage = msgs[1].Raw
	if string(raw) != `{"type":"output","text":"after\n"}` {
		t.Fatalf("raw = %s", raw)
	}
}

func TestStoreAndCancelRun(t *testing.T) {
	t.Parallel()
	store := plugintest.Store{"seen": "before"}
	answer := store.Answer(func(m plugintest.Message) plugintest.Reply {
		if m.Type == protocol.TypeConfirm {
			return plugintest.Reply{CancelRun: protocol.ReasonUserInterrupt}
		}
		return plugintest.NonInteractive(m)
	})
	var loaded []string
	_, err := plugintest.Run(protocol.Init{}, answer, func(p *pluginsdk.IO, _ *protocol.Init) error {
		for _, k := range []string{"seen", "new"} {
			v, ok, err := p.Load(k)
			if err != nil {
				return err
			}
			loaded = append(loaded, fmt.Sprintf("%s %v", v, ok))
		}
		p.Store("new", "value")
		v, _, err := p.Load("new")
		loaded = append(loaded, v)
		if err != nil {
			return err
		}
		_, err = p.Confirm("go on?", true)
		return err
	})
	if pluginsdk.ExitCode(err) != 130 {
		t.Fatalf("error = %v, want a run-wide cancel", err)
	}
	if want := []string{"before true", " false", "value"}; !reflect.DeepEqual(loaded, want) {
		t.Fatalf("loaded %q, want %q", loaded, want)
	}
	if store["new"] != "value" {
		t.Fatalf("store = %v", store)
	}
}

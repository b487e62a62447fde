package pluginsdk_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/pluginsdk/plugintest"
	"github.com/corvidlabs/fledge-go/protocol"
)

// connect returns a plugin connection that has read init, and the fake host
// at its other end. Both ends are closed when the test ends.
func connect(t *testing.T) (*pluginsdk.IO, *plugintest.Host) {
	t.Helper()
	p, h, closePlugin := plugintest.Pipe()
	t.Cleanup(func() {
		h.Close()
		closePlugin()
	})
	sent := make(chan error, 1)
	go func() { sent <- h.SendInit(protocol.Init{Command: "test"}) }()
	if _, err := p.RecvInit(); err != nil {
		t.Fatalf("RecvInit: %v", err)
	}
	if err := <-sent; err != nil {
		t.Fatalf("SendInit: %v", err)
	}
	return p, h
}

type result struct {
	v   any
	err error
}

// async runs a plugin call in its own goroutine, as a plugin blocked on a
// request would be, while the test plays the host.
func async(f func() (any, error)) <-chan result {
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	return ch
}

// wait guards against a hang; it asserts nothing about time.
func wait[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("plugin call did not return")
		panic("unreachable")
	}
}

func readLine(t *testing.T, h *plugintest.Host) string {
	t.Helper()
	line, err := h.ReadLine()
	if err != nil {
		t.Fatalf("host read: %v", err)
	}
	return string(line)
}

func id(s string) json.RawMessage { return json.RawMessage(`"` + s + `"`) }

func TestHelpersWireLines(t *testing.T) {
	t.Parallel()
	type call func(p *pluginsdk.IO) (any, error)
	none := func(err error) (any, error) { return nil, err }
	tests := []struct {
		name    string
		call    call
		line    string // exactly what the host must read
		respond bool
		value   any // the host's response value
		want    any // what the helper returns
	}{
		{"output", func(p *pluginsdk.IO) (any, error) { return none(p.Output("hi <b> & \"you\"\n")) },
			`{"type":"output","text":"hi <b> & \"you\"\n"}`, false, nil, nil},
		{"outputf", func(p *pluginsdk.IO) (any, error) { return none(p.Outputf("%d tags\n", 3)) },
			`{"type":"output","text":"3 tags\n"}`, false, nil, nil},
		{"log", func(p *pluginsdk.IO) (any, error) { return none(p.Log(pluginsdk.LevelWarn, "careful")) },
			`{"type":"log","level":"warn","message":"careful"}`, false, nil, nil},
		{"logf", func(p *pluginsdk.IO) (any, error) { return none(p.Logf(pluginsdk.LevelDebug, "n=%d", 2)) },
			`{"type":"log","level":"debug","message":"n=2"}`, false, nil, nil},
		{"progress", func(p *pluginsdk.IO) (any, error) { return none(p.Progress("Uploading", 3, 10)) },
			`{"type":"progress","message":"Uploading","current":3,"total":10}`, false, nil, nil},
		{"progress at zero", func(p *pluginsdk.IO) (any, error) { return none(p.Progress("Start", 0, 4)) },
			`{"type":"progress","message":"Start","current":0,"total":4}`, false, nil, nil},
		{"spinner", func(p *pluginsdk.IO) (any, error) { return none(p.Spinner("Thinking")) },
			`{"type":"progress","message":"Thinking"}`, false, nil, nil},
		{"progress done", func(p *pluginsdk.IO) (any, error) { return none(p.ProgressDone()) },
			`{"type":"progress","done":true}`, false, nil, nil},
		{"store", func(p *pluginsdk.IO) (any, error) { return none(p.Store("last", "prod\n")) },
			`{"type":"store","key":"last","value":"prod\n"}`, false, nil, nil},
		{"send unknown type", func(p *pluginsdk.IO) (any, error) {
			return none(p.Send(protocol.Outbound{Type: "table", Text: "x"}))
		}, `{"type":"table","text":"x"}`, false, nil, nil},

		{"prompt", func(p *pluginsdk.IO) (any, error) {
			return p.Prompt("Deploy target:", "staging", protocol.ValidateNonEmpty)
		}, `{"type":"prompt","id":"1","message":"Deploy target:","default":"staging","validate":"non_empty"}`, true, "production", "production"},
		{"prompt without default", func(p *pluginsdk.IO) (any, error) { return p.Prompt("Name?", "", "") },
			`{"type":"prompt","id":"1","message":"Name?"}`, true, "", ""},
		{"confirm", func(p *pluginsdk.IO) (any, error) { return p.Confirm("Deploy to production?", false) },
			`{"type":"confirm","id":"1","message":"Deploy to production?","default":false}`, true, true, true},
		{"confirm default yes", func(p *pluginsdk.IO) (any, error) { return p.Confirm("Go?", true) },
			`{"type":"confirm","id":"1","message":"Go?","default":true}`, true, false, false},
		{"select", func(p *pluginsdk.IO) (any, error) {
			return p.Select("Choose environment:", []string{"dev", "staging", "production"}, "staging")
		}, `{"type":"select","id":"1","message":"Choose environment:","default":1,"options":["dev","staging","production"]}`, true, "production", "production"},
		{"select first default", func(p *pluginsdk.IO) (any, error) { return p.Select("Pick", []string{"a", "b"}, "a") },
			`{"type":"select","id":"1","message":"Pick","default":0,"options":["a","b"]}`, true, "a", "a"},
		{"select answered by index", func(p *pluginsdk.IO) (any, error) { return p.Select("Pick", []string{"a", "b"}, "") },
			`{"type":"select","id":"1","message":"Pick","options":["a","b"]}`, true, 1, "b"},
		{"multi_select", func(p *pluginsdk.IO) (any, error) {
			return p.MultiSelect("Select regions:", []string{"us-east-1", "eu-west-1", "ap-southeast-1"}, []string{"us-east-1", "eu-west-1"})
		}, `{"type":"multi_select","id":"1","message":"Select regions:","options":["us-east-1","eu-west-1","ap-southeast-1"],"defaults":[0,1]}`,
			true, []string{"ap-southeast-1"}, []string{"ap-southeast-1"}},
		{"multi_select none chosen", func(p *pluginsdk.IO) (any, error) { return p.MultiSelect("M", []string{"a", "b"}, nil) },
			`{"type":"multi_select","id":"1","message":"M","options":["a","b"]}`, true, []string{}, []string{}},
		{"multi_select null", func(p *pluginsdk.IO) (any, error) { return p.MultiSelect("M", []string{"a"}, nil) },
			`{"type":"multi_select","id":"1","message":"M","options":["a"]}`, true, nil, []string{}},
		{"multi_select by index", func(p *pluginsdk.IO) (any, error) { return p.MultiSelect("M", []string{"a", "b"}, nil) },
			`{"type":"multi_select","id":"1","message":"M","options":["a","b"]}`, true, []int{1, 0}, []string{"b", "a"}},
		{"load found", func(p *pluginsdk.IO) (any, error) {
			v, ok, err := p.Load("last")
			return [2]any{v, ok}, err
		}, `{"type":"load","id":"1","key":"last"}`, true, "production", [2]any{"production", true}},
		{"load missing", func(p *pluginsdk.IO) (any, error) {
			v, ok, err := p.Load("last")
			return [2]any{v, ok}, err
		}, `{"type":"load","id":"1","key":"last"}`, true, nil, [2]any{"", false}},
		{"load empty string is found", func(p *pluginsdk.IO) (any, error) {
			v, ok, err := p.Load("k")
			return [2]any{v, ok}, err
		}, `{"type":"load","id":"1","key":"k"}`, true, "", [2]any{"", true}},
		{"exec", func(p *pluginsdk.IO) (any, error) {
			return p.Exec("git tag -l 'v*' --sort=-v:refname", "sub", 1500*time.Millisecond)
		}, `{"type":"exec","id":"1","command":"git tag -l 'v*' --sort=-v:refname","cwd":"sub","timeout":2}`,
			true, protocol.ExecResult{Code: 0, Stdout: "v0.9.1\nv0.9.0\n"}, protocol.ExecResult{Stdout: "v0.9.1\nv0.9.0\n"}},
		{"exec defaults", func(p *pluginsdk.IO) (any, error) { return p.Exec("true", "", 0) },
			`{"type":"exec","id":"1","command":"true"}`, true,
			protocol.ExecResult{Code: 126, Stderr: "exec capability not granted"}, protocol.ExecResult{Code: 126, Stderr: "exec capability not granted"}},
		{"metadata", func(p *pluginsdk.IO) (any, error) { return p.Metadata(protocol.MetaGitTags, protocol.MetaEnv) },
			`{"type":"metadata","id":"1","keys":["git_tags","env"]}`, true,
			map[string]any{"git_tags": []string{"v1"}, "env": nil},
			map[string]json.RawMessage{"git_tags": json.RawMessage(`["v1"]`), "env": json.RawMessage(`null`)}},
		{"metadata denied", func(p *pluginsdk.IO) (any, error) { return p.Metadata(protocol.MetaGitLog) },
			`{"type":"metadata","id":"1","keys":["git_log"]}`, true, map[string]any{}, map[string]json.RawMessage{}},
		{"request unknown type", func(p *pluginsdk.IO) (any, error) {
			raw, err := p.Request(protocol.Outbound{Type: "invoke", Command: "other"})
			return string(raw), err
		}, `{"type":"invoke","id":"1","command":"other"}`, true, map[string]int{"n": 1}, `{"n":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, h := connect(t)
			got := async(func() (any, error) { return tt.call(p) })
			if line := readLine(t, h); line != tt.line {
				t.Fatalf("wire line:\n got %s\nwant %s", line, tt.line)
			}
			if tt.respond {
				if err := h.Respond(id("1"), tt.value); err != nil {
					t.Fatal(err)
				}
			}
			r := wait(t, got)
			if r.err != nil {
				t.Fatalf("error: %v", r.err)
			}
			if !reflect.DeepEqual(r.v, tt.want) {
				t.Fatalf("result = %#v, want %#v", r.v, tt.want)
			}
		})
	}
}

func TestOutputEmptySendsNothing(t *testing.T) {
	t.Parallel()
	p, h := connect(t)
	if err := p.Output(""); err != nil {
		t.Fatal(err)
	}
	go p.Output("next\n")
	if line := readLine(t, h); line != `{"type":"output","text":"next\n"}` {
		t.Fatalf("first line = %s, want the second output", line)
	}
}

func TestMalformedResponseValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		call  func(p *pluginsdk.IO) error
		value string // raw JSON value, "" for no value at all
	}{
		{"prompt number", func(p *pluginsdk.IO) error { _, err := p.Prompt("q", "d", ""); return err }, `5`},
		{"prompt null", func(p *pluginsdk.IO) error { _, err := p.Prompt("q", "d", ""); return err }, `null`},
		{"prompt missing", func(p *pluginsdk.IO) error { _, err := p.Prompt("q", "d", ""); return err }, ``},
		{"confirm string", func(p *pluginsdk.IO) error { _, err := p.Confirm("q", true); return err }, `"yes"`},
		{"select not an option", func(p *pluginsdk.IO) error { _, err := p.Select("q", []string{"a"}, ""); return err }, `"b"`},
		{"select index out of range", func(p *pluginsdk.IO) error { _, err := p.Select("q", []string{"a"}, ""); return err }, `1`},
		{"multi_select string", func(p *pluginsdk.IO) error { _, err := p.MultiSelect("q", []string{"a"}, nil); return err }, `"a"`},
		{"multi_select unknown item", func(p *pluginsdk.IO) error { _, err := p.MultiSelect("q", []string{"a"}, nil); return err }, `["a","z"]`},
		{"load number", func(p *pluginsdk.IO) error { _, _, err := p.Load("k"); return err }, `5`},
		{"exec string", func(p *pluginsdk.IO) error { _, err := p.Exec("x", "", 0); return err }, `"ok"`},
		{"exec null", func(p *pluginsdk.IO) error { _, err := p.Exec("x", "", 0); return err }, `null`},
		{"metadata list", func(p *pluginsdk.IO) error { _, err := p.Metadata("env"); return err }, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, h := connect(t)
			got := async(func() (any, error) { return nil, tt.call(p) })
			readLine(t, h)
			line := `{"type":"response","id":"1"}`
			if tt.value != "" {
				line = `{"type":"response","id":"1","value":` + tt.value + `}`
			}
			if err := h.WriteLine(line); err != nil {
				t.Fatal(err)
			}
			r := wait(t, got)
			var re *pluginsdk.ResponseError
			if !errors.As(r.err, &re) {
				t.Fatalf("error = %v, want a *ResponseError", r.err)
			}
			if re.ID != "1" {
				t.Errorf("ResponseError.ID = %q, want 1", re.ID)
			}
		})
	}
}

func TestBadArgumentsSendNothing(t *testing.T) {
	t.Parallel()
	p, h := connect(t)
	calls := map[string]func() error{
		"select default not an option": func() error { _, err := p.Select("q", []string{"a"}, "b"); return err },
		"select without options":       func() error { _, err := p.Select("q", nil, ""); return err },
		"multi default not an option":  func() error { _, err := p.MultiSelect("q", []string{"a"}, []string{"b"}); return err },
		"multi without options":        func() error { _, err := p.MultiSelect("q", nil, nil); return err },
	}
	for name, call := range calls {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Nothing was written and no id was spent: the next request is id 1.
	got := async(func() (any, error) { return p.Confirm("ok?", true) })
	if line := readLine(t, h); line != `{"type":"confirm","id":"1","message":"ok?","default":true}` {
		t.Fatalf("next line = %s", line)
	}
	h.Respond(id("1"), true)
	if r := wait(t, got); r.err != nil || r.v != true {
		t.Fatalf("confirm = %v, %v", r.v, r.err)
	}
}

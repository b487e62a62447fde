package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/mcpserver"
	"github.com/corvidlabs/fledge-go/runner"
)

// elicitations records the elicitation requests a client got and answers
// them with answer.
type elicitations struct {
	mu       sync.Mutex
	requests []*mcp.ElicitParams
	answer   func(*mcp.ElicitParams) *mcp.ElicitResult
}

func (el *elicitations) handler(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	el.mu.Lock()
	el.requests = append(el.requests, req.Params)
	el.mu.Unlock()
	return el.answer(req.Params), nil
}

func (el *elicitations) count() int {
	el.mu.Lock()
	defer el.mu.Unlock()
	return len(el.requests)
}

// schemaOf is the "answer" property of a requested schema, as JSON.
func schemaOf(t *testing.T, p *mcp.ElicitParams) map[string]any {
	t.Helper()
	b, _ := json.Marshal(p.RequestedSchema)
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, prop := range s.Properties {
		return prop
	}
	t.Fatalf("schema without properties: %s", b)
	return nil
}

// responses reads the driver plugin's responses.log: each answer's value,
// or "cancel:<reason>".
func responses(t *testing.T, dir string) []any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "responses.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("responses.log: %q: %v", line, err)
		}
		if m["type"] == "cancel" {
			out = append(out, "cancel:"+m["reason"].(string))
		} else {
			out = append(out, m["value"])
		}
	}
	return out
}

// driver installs the scripted plugin with script as its script.txt.
func (e *env) driver(name, cmd, script string, grants manifest.Capabilities) string {
	return e.install(plugin{name: name, protocol: manifest.ProtocolV1, grants: grants,
		commands: []command{{name: cmd, binary: "bin/driver.sh"}},
		copies:   map[string]string{"bin/driver.sh": driverScript},
		files:    map[string]string{"script.txt": script}})
}

// TestElicitation: a plugin's questions become elicitation forms; the
// plugin gets back its own option texts and default byte for byte, though
// the person saw them escaped.
func TestElicitation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver("fledge-plugin-ask", "ask", strings.Join([]string{
		`?{"type":"select","id":"s","message":"Pick one","options":["a\u001b[31mb","plain"],"default":1}`,
		`?{"type":"prompt","id":"p","message":"Name?","default":"x\u202ey"}`,
		`?{"type":"multi_select","id":"m","message":"Many","options":["o1","o2","o3"],"defaults":[1]}`,
		`?{"type":"confirm","id":"c","message":"Sure?","default":false}`,
		`?{"type":"prompt","id":"v","message":"Typed?","validate":"non_empty"}`,
		`{"type":"output","text":"done\n"}`,
	}, "\n")+"\n", manifest.Capabilities{})
	tries := 0
	el := &elicitations{answer: func(p *mcp.ElicitParams) *mcp.ElicitResult {
		content := map[string]any{}
		switch {
		case strings.Contains(p.Message, "Pick one"):
			content["answer"] = "1"
		case strings.Contains(p.Message, "Name?"):
			content["answer"] = `x\u202ey` // the default, sent back as shown
		case strings.Contains(p.Message, "Many"):
			content["answer"] = []any{"1", "3"}
		case strings.Contains(p.Message, "Sure?"):
			content["answer"] = true
		case strings.Contains(p.Message, "Typed?"):
			tries++
			if tries == 1 {
				content["answer"] = "" // refused by non_empty: asked again
			} else {
				content["answer"] = "typed"
			}
		}
		return &mcp.ElicitResult{Action: "accept", Content: content}
	}}
	cs := connect(t, e.server(nil), &mcp.ClientOptions{ElicitationHandler: el.handler})
	res := call(t, cs, "ask", nil, nil)
	if res.IsError || text(res) != "done\n" {
		t.Fatalf("ask: %v %q\n%s", res.IsError, text(res), e.log)
	}
	got := responses(t, dir)
	want := []any{"a\x1b[31mb", "x\u202ey", []any{"o1", "o3"}, true, "typed"}
	if g, w := mustJSON(got), mustJSON(want); g != w {
		t.Errorf("the plugin got %s, want %s", g, w)
	}
	if el.count() != 6 {
		t.Fatalf("%d elicitations, want 6", el.count())
	}
	sel := schemaOf(t, el.requests[0])
	if g := mustJSON(sel["oneOf"]); g != `[{"const":"1","title":"a\\x1b[31mb"},{"const":"2","title":"plain"}]` || sel["default"] != "2" {
		t.Errorf("select schema %s", mustJSON(sel))
	}
	if !strings.HasPrefix(el.requests[0].Message, "fledge-plugin-ask asks: Pick one") {
		t.Errorf("select message %q", el.requests[0].Message)
	}
	if p := schemaOf(t, el.requests[1]); p["type"] != "string" || p["default"] != `x\u202ey` {
		t.Errorf("prompt schema %s", mustJSON(p))
	}
	if m := schemaOf(t, el.requests[2]); mustJSON(m["default"]) != `["2"]` || m["type"] != "array" {
		t.Errorf("multi_select schema %s", mustJSON(m))
	}
	if c := schemaOf(t, el.requests[3]); c["type"] != "boolean" || c["default"] != false {
		t.Errorf("confirm schema %s", mustJSON(c))
	}
	if !strings.Contains(el.requests[5].Message, "try again") {
		t.Errorf("the second ask of a refused answer should say why: %q", el.requests[5].Message)
	}
}

// TestElicitationDeclined: declining a question is abandoning it, as Esc
// on a terminal: the run is interrupted and the plugin gets cancel.
func TestElicitationDeclined(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver("fledge-plugin-ask", "ask", `?{"type":"confirm","id":"c","message":"Sure?","default":true}`+"\n"+
		`{"type":"output","text":"went on\n"}`+"\n", manifest.Capabilities{})
	el := &elicitations{answer: func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }}
	cs := connect(t, e.server(nil), &mcp.ClientOptions{ElicitationHandler: el.handler})
	res := call(t, cs, "ask", nil, nil)
	if !res.IsError || errorCode(res) != runner.CodeInterrupted {
		t.Errorf("declined: %v %s %q", res.IsError, errorCode(res), text(res))
	}
	if got := responses(t, dir); len(got) != 1 || got[0] != "cancel:user_interrupt" {
		t.Errorf("the plugin got %v", got)
	}
}

// TestNoElicitation: without elicitation the non-interactive rule holds: a
// question takes its default, and one without a default is cancelled.
func TestNoElicitation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver("fledge-plugin-ask", "ask", strings.Join([]string{
		`?{"type":"select","id":"s","message":"Pick","options":["a","b"],"default":1}`,
		`?{"type":"prompt","id":"p","message":"Name?"}`,
		`{"type":"output","text":"done\n"}`,
	}, "\n")+"\n", manifest.Capabilities{})
	cs := connect(t, e.server(nil), nil)
	res := call(t, cs, "ask", nil, nil)
	if res.IsError || text(res) != "done\n" {
		t.Errorf("ask: %v %q", res.IsError, text(res))
	}
	if got := mustJSON(responses(t, dir)); got != `["b","cancel:non_interactive"]` {
		t.Errorf("the plugin got %s", got)
	}
}

// TestNonInteractiveServer: a server started with --ni asks nothing, even
// of a client that could answer: questions take their defaults, and a
// dangerous command is refused.
func TestNonInteractiveServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver("fledge-plugin-ask", "ask", `?{"type":"confirm","id":"c","message":"Sure?","default":true}`+"\n", manifest.Capabilities{})
	e.install(plugin{name: "fledge-plugin-danger", protocol: manifest.ProtocolV1,
		commands: []command{{name: "wipe", binary: "bin/run", dangerous: true}}, files: map[string]string{"bin/run": shArgs}})
	el := &elicitations{answer: func(*mcp.ElicitParams) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": false, "confirm": true}}
	}}
	cs := connect(t, e.server(func(o *mcpserver.Options) { o.NonInteractive = true }), &mcp.ClientOptions{ElicitationHandler: el.handler})
	if res := call(t, cs, "ask", nil, nil); res.IsError || mustJSON(responses(t, dir)) != `[true]` {
		t.Errorf("ask: %v %q, the plugin got %s", res.IsError, text(res), mustJSON(responses(t, dir)))
	}
	if res := call(t, cs, "wipe", nil, nil); !res.IsError || errorCode(res) != mcpserver.CodeApprovalRequired || !strings.Contains(text(res), "--ni") {
		t.Errorf("wipe: %v %q", res.IsError, text(res))
	}
	if el.count() != 0 {
		t.Errorf("%d elicitations under --ni", el.count())
	}
}

// TestDangerous: a dangerous command is refused without a way to confirm
// it, refused when the person declines, runs when they confirm what they
// were shown (each argument, escaped), and runs without asking under
// --allow-dangerous.
func TestDangerous(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.install(plugin{name: "fledge-plugin-danger", protocol: manifest.ProtocolV1,
		commands: []command{{name: "wipe", binary: "bin/run", dangerous: true,
			args: []manifest.Arg{{Name: "what", Type: "string", Required: true}, {Name: "all", Type: "boolean"}}}},
		files: map[string]string{"bin/run": shArgs + "touch \"$FLEDGE_PLUGIN_DIR/ran\"\n"}})
	ran := func() bool {
		_, err := os.Stat(filepath.Join(dir, "ran"))
		defer os.Remove(filepath.Join(dir, "ran"))
		return err == nil
	}
	args := map[string]any{"what": "a\nb", "all": true}

	res := call(t, connect(t, e.server(nil), nil), "wipe", args, nil)
	if !res.IsError || errorCode(res) != mcpserver.CodeApprovalRequired || !strings.Contains(text(res), "fledge mcp --allow-dangerous") || ran() {
		t.Errorf("no elicitation: %v %s %q", res.IsError, errorCode(res), text(res))
	}

	decline := &elicitations{answer: func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }}
	res = call(t, connect(t, e.server(nil), &mcp.ClientOptions{ElicitationHandler: decline.handler}), "wipe", args, nil)
	if !res.IsError || errorCode(res) != mcpserver.CodeApprovalRequired || ran() || decline.count() != 1 {
		t.Errorf("declined: %v %s %q", res.IsError, errorCode(res), text(res))
	}

	unticked := &elicitations{answer: func(*mcp.ElicitParams) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}
	}}
	res = call(t, connect(t, e.server(nil), &mcp.ClientOptions{ElicitationHandler: unticked.handler}), "wipe", args, nil)
	if !res.IsError || ran() {
		t.Errorf("accepted unconfirmed: %v %q", res.IsError, text(res))
	}

	confirm := &elicitations{answer: func(*mcp.ElicitParams) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
	}}
	res = call(t, connect(t, e.server(nil), &mcp.ClientOptions{ElicitationHandler: confirm.handler}), "wipe", args, nil)
	// (shArgs cannot put a newline in a JSON line: the runner skips that
	// one.)
	if res.IsError || text(res) != "2=true\n" || !ran() {
		t.Errorf("confirmed: %v %q", res.IsError, text(res))
	}
	if confirm.count() != 1 {
		t.Fatalf("%d confirmations asked", confirm.count())
	}
	msg := confirm.requests[0].Message
	for _, want := range []string{"dangerous command wipe of plugin fledge-plugin-danger", `1. "a\nb"`, `2. "true"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the confirmation lacks %q:\n%s", want, msg)
		}
	}

	// A confirmation left unanswered waits as long as a question would.
	silent := func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	patient := e.server(func(o *mcpserver.Options) { o.Runner.Timeouts.Prompt = 300 * time.Millisecond })
	res = call(t, connect(t, patient, &mcp.ClientOptions{ElicitationHandler: silent}), "wipe", args, nil)
	if !res.IsError || errorCode(res) != mcpserver.CodeApprovalRequired || !strings.Contains(text(res), "not confirmed within 300ms") || ran() {
		t.Errorf("unanswered: %v %s %q", res.IsError, errorCode(res), text(res))
	}

	never := &elicitations{answer: func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} }}
	allow := e.server(func(o *mcpserver.Options) { o.AllowDangerous = true })
	res = call(t, connect(t, allow, &mcp.ClientOptions{ElicitationHandler: never.handler}), "wipe", args, nil)
	if res.IsError || !ran() || never.count() != 0 {
		t.Errorf("--allow-dangerous: %v %q, %d asked", res.IsError, text(res), never.count())
	}
}

// TestProgressAndLog: a plugin's log becomes a logging notification at the
// level the client set; its progress becomes progress notifications for a
// call with a progress token, increasing, ending at the total; none for a
// call without one.
func TestProgressAndLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.driver("fledge-plugin-work", "work", strings.Join([]string{
		`{"type":"log","level":"debug","message":"quiet"}`,
		`{"type":"log","level":"warn","message":"careful"}`,
		`{"type":"progress","message":"Baking","current":1,"total":3}`,
		`{"type":"progress","message":"Baking","current":2,"total":3}`,
		`{"type":"progress","message":"Baking","current":3,"total":3}`,
		`{"type":"progress","done":true}`,
		`{"type":"output","text":"ok\n"}`,
	}, "\n")+"\n", manifest.Capabilities{})
	var mu sync.Mutex
	var logs []string
	var progress []*mcp.ProgressNotificationParams
	cs := connect(t, e.server(nil), &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, string(r.Params.Level)+" "+r.Params.Logger+" "+mustJSON(r.Params.Data))
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, r.Params)
		},
	})
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "work", nil, mcp.Meta{"progressToken": "tok-1"})
	if res.IsError || text(res) != "ok\n" {
		t.Fatalf("work: %v %q", res.IsError, text(res))
	}
	// Notifications may be handled after the result arrives.
	testutil.Eventually(t, "the last progress notification", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) > 0 && progress[len(progress)-1].Progress == 3 && len(logs) > 0
	})
	mu.Lock()
	if g := strings.Join(logs, "|"); g != `warning fledge-plugin-work "careful"` {
		t.Errorf("logs %q", g)
	}
	if len(progress) == 0 || len(progress) > 3 {
		t.Errorf("%d progress notifications", len(progress))
	}
	last := -1.0
	for _, p := range progress {
		if p.ProgressToken != "tok-1" || p.Progress <= last || p.Total != 3 || p.Message != "Baking" {
			t.Errorf("progress %+v after %v", p, last)
		}
		last = p.Progress
	}
	if last != 3 {
		t.Errorf("the last progress was %v, want 3", last)
	}
	n := len(progress)
	mu.Unlock()
	if !strings.Contains(e.log.String(), "  WARN [fledge-plugin-work] careful") {
		t.Errorf("the server log lacks the plugin's log:\n%s", e.log)
	}

	call(t, cs, "work", nil, nil)
	time.Sleep(200 * time.Millisecond) // for a notification that should not come
	mu.Lock()
	defer mu.Unlock()
	if len(progress) != n {
		t.Errorf("a call without a progress token got %d progress notifications", len(progress)-n)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

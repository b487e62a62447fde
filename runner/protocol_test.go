package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
)

var allGrants = manifest.Capabilities{Exec: true, Store: true, Metadata: true}

func TestIDsEchoedExactly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver(allGrants,
		`?{"type":"load","id":"1","key":"a"}`,
		`?{"type":"load","id":"1","key":"b"}`,
		`?{"type":"load","id":7,"key":"c"}`,
		`?{"type":"load","id":-2.50,"key":"c"}`,
		`?{"type":"load","id":"é \"x\" <&>","key":"c"}`,
	)
	e.mustRun(Request{Command: "drive"})
	got := strings.Split(strings.TrimSpace(e.rawResponses(dir)), "\n")
	want := []string{
		`{"type":"response","id":"1","value":null}`,
		`{"type":"response","id":"1","value":null}`,
		`{"type":"response","id":7,"value":null}`,
		`{"type":"response","id":-2.50,"value":null}`,
		`{"type":"response","id":"é \"x\" <&>","value":null}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("responses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMalformedUnknownAndIDless(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver(allGrants,
		`this is not json`,
		``,
		`{"type":"output","text":"a"}`,
		`{"type":"future_thing","id":"9","x":1}`,
		`{"type":"prompt","message":"no id"}`,
		`{"no":"type"}`,
		`{"type":"response","id":"1","value":"x"}`,
		`[1,2]`,
		`?{"type":"select","id":"s","message":"m","options":"red"}`,
		`?{"type":"select","id":"e","message":"m","options":[]}`,
		`{"type":"output","text":"b\n"}`,
		`?{"type":"load","id":{"x":1},"key":"k"}`,
	)
	// The last request has an id that is neither string nor number: it is
	// skipped, so the driver would wait for ever; the run's timeout ends
	// it, made to expire once fledge has warned about that request.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		for !strings.Contains(e.ui.warnings(), "neither a string nor a number") {
			time.Sleep(10 * time.Millisecond)
		}
		cancel(errRunTimeout)
	}()
	_, err := runBounded(t, e.runner(), ctx, Request{Command: "drive"})
	if CodeOf(err) != CodeTimeout {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if out := e.stdout.String(); out != "ab\n" {
		t.Errorf("stdout = %q", out)
	}
	resps := e.responses(dir)
	if len(resps) < 2 || resps[0]["type"] != "cancel" || resps[0]["id"] != "s" || resps[0]["reason"] != "invalid_request" ||
		resps[1]["type"] != "cancel" || resps[1]["id"] != "e" || resps[1]["reason"] != "invalid_request" {
		t.Errorf("responses = %v", resps)
	}
	if last := resps[len(resps)-1]; last["type"] != "cancel" || last["reason"] != "timeout" || last["id"] != nil {
		t.Errorf("last message = %v, want the run's timeout cancel", last)
	}
	w := e.ui.warnings()
	for _, s := range []string{"not a protocol message", "prompt request without an id", "without a type", "neither a string nor a number", "orphaned reply"} {
		if !strings.Contains(w, s) {
			t.Errorf("warnings lack %q:\n%s", s, w)
		}
	}
	if strings.Contains(w, "future_thing") {
		t.Errorf("unknown type warned about:\n%s", w)
	}
}

func TestDenialsWithoutGrants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The manifest requests everything; plugins.toml grants nothing.
	dir := e.install(plugin{
		name: "fledge-plugin-drive", protocol: "fledge-v1", commands: map[string]string{"drive": "bin/driver.sh"},
		copies:   map[string]string{"bin/driver.sh": filepath.Join("testdata", "plugins", "driver.sh")},
		requests: allGrants,
	})
	writeFile(t, filepath.Join(dir, "script.txt"), strings.Join([]string{
		`?{"type":"exec","id":"1","command":"touch ran"}`,
		`?{"type":"exec","id":"2","command":"touch ran"}`,
		`{"type":"store","key":"k","value":"v"}`,
		`?{"type":"load","id":"3","key":"k"}`,
		`?{"type":"metadata","id":"4","keys":["env","git_tags"]}`,
	}, "\n")+"\n", 0o644)
	res := e.mustRun(Request{Command: "drive"})
	got := strings.Split(strings.TrimSpace(e.rawResponses(dir)), "\n")
	want := []string{
		`{"type":"response","id":"1","value":{"code":126,"stdout":"","stderr":"exec capability not granted"}}`,
		`{"type":"response","id":"2","value":{"code":126,"stdout":"","stderr":"exec capability not granted"}}`,
		`{"type":"response","id":"3","value":null}`,
		`{"type":"response","id":"4","value":{}}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("responses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(e.project, "ran")); err == nil {
		t.Error("a denied exec ran")
	}
	if _, err := os.Stat(e.paths.StoreFile("fledge-plugin-drive")); err == nil {
		t.Error("a denied store was written")
	}
	if !reflect.DeepEqual(res.Denied, []manifest.Capability{manifest.CapExec, manifest.CapStore, manifest.CapMetadata}) {
		t.Errorf("denied = %v", res.Denied)
	}
	if n := strings.Count(e.ui.warnings(), "denied exec"); n != 1 {
		t.Errorf("exec denial warned %d times, want once:\n%s", n, e.ui.warnings())
	}
	var init map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "init.json"))
	_ = json.Unmarshal(data, &init)
	if caps := init["capabilities"]; !reflect.DeepEqual(caps, map[string]any{"exec": false, "store": false, "metadata": false}) {
		t.Errorf("init capabilities = %v", caps)
	}
}

func TestNonInteractiveAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver(allGrants,
		`?{"type":"prompt","id":"p1","message":"name?","default":"world"}`,
		`?{"type":"prompt","id":"p2","message":"no default?"}`,
		`?{"type":"prompt","id":"p3","message":"n?","default":"abc","validate":"integer"}`,
		`?{"type":"prompt","id":"p4","message":"n?","default":42,"validate":"integer"}`,
		`?{"type":"confirm","id":"c1","message":"sure?","default":false}`,
		`?{"type":"confirm","id":"c2","message":"sure?"}`,
		`?{"type":"select","id":"s1","message":"pick","options":["a","b"],"default":1}`,
		`?{"type":"select","id":"s2","message":"pick","options":["a","b"]}`,
		`?{"type":"select","id":"s3","message":"pick","options":["a","b"],"default":5}`,
		`?{"type":"multi_select","id":"m1","message":"pick","options":["a","b","c"],"defaults":[2,0,9]}`,
		`?{"type":"multi_select","id":"m2","message":"pick","options":["a","b"]}`,
		`?{"type":"multi_select","id":"m3","message":"pick","options":["a","b"],"defaults":[]}`,
	)
	e.ui.answers = nil // any question reaching the UI fails the test
	e.mustRun(Request{Command: "drive", NonInteractive: true})
	got := strings.Split(strings.TrimSpace(e.rawResponses(dir)), "\n")
	want := []string{
		`{"type":"response","id":"p1","value":"world"}`,
		`{"type":"cancel","id":"p2","reason":"non_interactive"}`,
		`{"type":"cancel","id":"p3","reason":"non_interactive"}`,
		`{"type":"response","id":"p4","value":"42"}`,
		`{"type":"response","id":"c1","value":false}`,
		`{"type":"cancel","id":"c2","reason":"non_interactive"}`,
		`{"type":"response","id":"s1","value":"b"}`,
		`{"type":"cancel","id":"s2","reason":"non_interactive"}`,
		`{"type":"cancel","id":"s3","reason":"non_interactive"}`,
		`{"type":"response","id":"m1","value":["c","a"]}`,
		`{"type":"cancel","id":"m2","reason":"non_interactive"}`,
		`{"type":"response","id":"m3","value":[]}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("responses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(e.ui.asked) != 0 {
		t.Errorf("the UI was asked %v", e.ui.asked)
	}
}

func TestInteractiveQuestions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver(allGrants,
		`?{"type":"prompt","id":"1","message":"name?","default":"world","validate":"non_empty"}`,
		`?{"type":"confirm","id":"2","message":"sure?","default":false}`,
		`?{"type":"select","id":"3","message":"color?","options":["red","green"],"default":0}`,
		`?{"type":"multi_select","id":"4","message":"tops?","options":["a","b","c"]}`,
		`?{"type":"prompt","id":"5","message":"slow?"}`,
		`?{"type":"prompt","id":"6","message":"url?","validate":"url"}`,
	)
	e.ui.answers = []any{"Ada", true, 1, []int{2, 0}, block{}, "ftp://x"}
	r := e.runner()
	r.Interactive = true
	r.Timeouts.Prompt = 200 * time.Millisecond
	if _, err := e.runWith(r, Request{Command: "drive"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(e.rawResponses(dir)), "\n")
	want := []string{
		`{"type":"response","id":"1","value":"Ada"}`,
		`{"type":"response","id":"2","value":true}`,
		`{"type":"response","id":"3","value":"green"}`,
		`{"type":"response","id":"4","value":["c","a"]}`,
		`{"type":"cancel","id":"5","reason":"timeout"}`,
		`{"type":"cancel","id":"6","reason":"non_interactive"}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("responses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(e.ui.warnings(), "enter an http:// or https:// URL") {
		t.Errorf("warnings: %s", e.ui.warnings())
	}
}

func TestAbortedQuestionInterruptsTheRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.driver(allGrants,
		`?{"type":"prompt","id":"1","message":"name?"}`,
		`?{"type":"prompt","id":"2","message":"again?"}`,
	)
	e.ui.answers = []any{ErrAborted}
	r := e.runner()
	r.Interactive = true
	res, err := e.runWith(r, Request{Command: "drive"})
	if CodeOf(err) != CodeInterrupted {
		t.Fatalf("err = %v, want interrupted", err)
	}
	resps := e.responses(dir)
	if len(resps) != 2 {
		t.Fatalf("responses = %v", resps)
	}
	for _, m := range resps {
		if m["type"] != "cancel" || m["reason"] != "user_interrupt" {
			t.Errorf("response %v, want a user_interrupt cancel", m)
		}
	}
	if len(e.ui.asked) != 1 {
		t.Errorf("asked %v after the interrupt", e.ui.asked)
	}
	_ = res
}

func TestOutputOnATerminalKeepsOnlyColour(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{false, true} {
		e := newEnv(t)
		e.driver(allGrants, `{"type":"output","text":"\u001b[31mred\u001b[0m\u001b]0;title\u0007\u001b[2J done\r\n"}`)
		r := e.runner()
		r.StdoutTTY = tty
		if _, err := e.runWith(r, Request{Command: "drive"}); err != nil {
			t.Fatal(err)
		}
		want := "\x1b[31mred\x1b[0m\x1b]0;title\x07\x1b[2J done\r\n"
		if tty {
			want = "\x1b[31mred\x1b[0m done\r\n"
		}
		if got := e.stdout.String(); got != want {
			t.Errorf("tty=%v: stdout = %q, want %q", tty, got, want)
		}
	}
}

func TestCaptureForJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.driver(allGrants, `{"type":"output","text":"a\u001b[1mb"}`, `{"type":"output","text":"c\n"}`)
	res := e.mustRun(Request{Command: "drive", Capture: true})
	if res.Output != "abc\n" || res.OutputTruncated {
		t.Errorf("output = %q (truncated %v)", res.Output, res.OutputTruncated)
	}
	if e.stdout.String() != "" {
		t.Errorf("stdout = %q, want nothing under capture", e.stdout.String())
	}
}

func TestLogsAndProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.driver(allGrants,
		`{"type":"log","level":"trace","message":"t"}`,
		`{"type":"log","level":"WARNING","message":"w\u001b]52;c;evil\u0007!"}`,
		`{"type":"log","level":"bogus","message":"i"}`,
		`{"type":"progress","message":"up","current":3,"total":10}`,
		`{"type":"output","text":"x"}`,
		`{"type":"progress","message":"spin"}`,
		`{"type":"progress","done":true}`,
		`{"type":"progress","message":"left open","current":1,"total":2}`,
	)
	r := e.runner()
	r.StdoutTTY = true
	if _, err := e.runWith(r, Request{Command: "drive"}); err != nil {
		t.Fatal(err)
	}
	wantLogs := []string{"fledge-plugin-drive debug t", "fledge-plugin-drive warn w!", "fledge-plugin-drive info i"}
	if !reflect.DeepEqual(e.ui.logs, wantLogs) {
		t.Errorf("logs = %q", e.ui.logs)
	}
	p := e.ui.progress
	if len(p) < 6 || !p[0].Determinate || p[0].Current != 3 || p[0].Total != 10 || p[0].Message != "up" ||
		p[2].Determinate || p[2].Message != "spin" || !p[3].Done || !p[len(p)-1].Done {
		t.Errorf("progress = %+v", p)
	}
	if e.ui.pauses == 0 {
		t.Error("output under a progress bar did not pause it")
	}
}

package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/corvidlabs/fledge-go/mcpserver"
)

// TestStructuredOutput: a command that prints JSON has its output as
// structured content too, checked against the schema it declares (which
// its tool lists); one that breaks its schema fails; without a schema,
// only an object is structured; a text command stays text.
func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const schema = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	run := "#!/bin/sh\ncase \"$1\" in\n  good) echo '{\"n\": 3, \"tag\": \"x\"}' ;;\n  bad) echo '{\"n\": \"three\"}' ;;\n  list) echo '[1, 2]' ;;\n  *) echo 'plain words' ;;\nesac\n"
	e.install(plugin{name: "fledge-plugin-js", files: map[string]string{"bin/run": run}, commands: []command{
		{name: "typed", binary: "bin/run", output: "json", outputSchema: schema},
		{name: "untyped", binary: "bin/run", output: "json"},
		{name: "text", binary: "bin/run"},
	}})
	cs := connect(t, e.server(nil), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		got, _ := json.Marshal(tool.OutputSchema)
		want := "null"
		if tool.Name == "typed" {
			want = schema
		}
		if canonical(got) != canonical([]byte(want)) {
			t.Errorf("%s: outputSchema %s, want %s", tool.Name, got, want)
		}
	}
	for _, tc := range []struct {
		tool, mode string
		structured string // "" none
		code       string
	}{
		{"typed", "good", `{"n":3,"tag":"x"}`, ""},
		{"typed", "bad", "", mcpserver.CodeMalformedOutput},
		{"typed", "list", "", mcpserver.CodeMalformedOutput},
		{"untyped", "good", `{"n":3,"tag":"x"}`, ""},
		{"untyped", "list", "", ""},
		{"text", "good", "", ""},
	} {
		r := call(t, cs, tc.tool, map[string]any{"args": []string{tc.mode}}, nil)
		got := ""
		if r.StructuredContent != nil {
			b, _ := json.Marshal(r.StructuredContent)
			got = string(b)
		}
		if got != tc.structured || errorCode(r) != tc.code || r.IsError != (tc.code != "") {
			t.Errorf("%s %s: structured %s, code %q, isError %v; want %s, %q\n%s", tc.tool, tc.mode, got, errorCode(r), r.IsError, tc.structured, tc.code, text(r))
		}
		if tc.code == "" && text(r) == "" {
			t.Errorf("%s %s: no text content", tc.tool, tc.mode)
		}
	}
}

// canonical is JSON re-encoded with sorted keys.
func canonical(b []byte) string {
	var v any
	_ = json.Unmarshal(b, &v)
	out, _ := json.Marshal(v)
	return string(out)
}

package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

func oneTool(t testing.TB, args []manifest.Arg) *Tool {
	t.Helper()
	f := &lockfile.File{Plugins: []lockfile.Plugin{{
		Name: "fledge-plugin-x", Commands: []string{"x"},
		CommandDetails: []manifest.Command{{Name: "x", Args: args}},
	}}}
	c := Build(f, nil, nil)
	if len(c.Tools) != 1 {
		t.Fatalf("tools: %v", c.Tools)
	}
	return c.Tools[0]
}

// TestArgv: the argv a call becomes (seeds/003): declaration order,
// numbers and booleans stringified, places held for optional args left out
// before a given one, nothing for trailing ones.
func TestArgv(t *testing.T) {
	typed := oneTool(t, []manifest.Arg{
		{Name: "url", Type: "string", Required: true},
		{Name: "count", Type: "integer"},
		{Name: "ratio", Type: "number"},
		{Name: "force", Type: "boolean"},
		{Name: "mode", Type: "path"},
	})
	for _, tc := range []struct{ in, want string }{
		{`{"url":"a b"}`, `["a b"]`},
		{`{"force":false,"url":"u","count":3}`, `["u","3","","false"]`},
		{`{"url":"u","count":5.0}`, `["u","5"]`},
		{`{"url":"u","count":1e3}`, `["u","1000"]`},
		{`{"url":"u","count":123456789012345678901234567890}`, `["u","123456789012345678901234567890"]`},
		{`{"url":"u","ratio":1.50}`, `["u","","1.50"]`},
		{`{"url":"u","ratio":-2e-3}`, `["u","","-2e-3"]`},
		{`{"url":"u","mode":"m"}`, `["u","","","","m"]`},
		{`{"url":"  spaced \n text "}`, `["  spaced \n text "]`},
		{`{"url":"-rf"}`, `["-rf"]`},
	} {
		got, err := typed.Argv([]byte(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if g := mustJSON(got); g != tc.want {
			t.Errorf("%s: argv %s, want %s", tc.in, g, tc.want)
		}
	}
	for _, in := range []string{
		``, `null`, `{}`, // url is required
		`{"url":1}`,
		`{"url":null}`,
		`{"url":"u","count":1.5}`,
		`{"url":"u","count":"3"}`,
		`{"url":"u","force":"true"}`,
		`{"url":"u","ratio":"1"}`,
		`{"url":"u","extra":1}`,
		`{"url":"a\u0000b"}`,
		`{"url":"u","count":1e999}`,
		`[]`, `"u"`, `{"url":`,
	} {
		_, err := typed.Argv([]byte(in))
		var ae *ArgumentsError
		if !errors.As(err, &ae) || ae.Tool != "x" {
			t.Errorf("%q: got %v, want an *ArgumentsError", in, err)
		}
	}

	free := oneTool(t, nil)
	for _, tc := range []struct{ in, want string }{
		{``, `[]`},
		{`{}`, `[]`},
		{`{"args":[]}`, `[]`},
		{`{"args":["status","--json","a b"]}`, `["status","--json","a b"]`},
	} {
		got, err := free.Argv([]byte(tc.in))
		if err != nil {
			t.Errorf("free %s: %v", tc.in, err)
		} else if g := mustJSON(got); g != tc.want {
			t.Errorf("free %s: argv %s, want %s", tc.in, g, tc.want)
		}
	}
	for _, in := range []string{`{"args":"status"}`, `{"args":[1]}`, `{"argv":[]}`, `{"args":["a\u0000"]}`} {
		if _, err := free.Argv([]byte(in)); err == nil {
			t.Errorf("free %s: accepted", in)
		}
	}
	_, err := typed.Argv([]byte(`{"url":"u","extra":1}`))
	if err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("the error should name the unknown property: %v", err)
	}
}

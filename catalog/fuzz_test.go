package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

// FuzzArgv: whatever a client sends as arguments, Argv never panics, and
// what it accepts is an argv the command's declaration allows: no more
// words than declared args, no NUL byte, a typed word that parses as its
// type, and every required arg present.
func FuzzArgv(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"url":"a b"}`, `{"url":"u","count":3,"force":true}`,
		`{"url":"u","count":1e3,"ratio":-2.5e-3}`, `{"url":"u","count":1.5}`, `{"url":"u","extra":1}`,
		`{"url":"a\u0000b"}`, `{"url":"u","count":123456789012345678901234567890}`, `{"url":"u","url":"v"}`,
		`{"args":["a","b"]}`, `{"args":"a"}`, `{"url":"u","count":1e999}`, `{"url":"u","force":null}`,
	} {
		f.Add([]byte(seed))
	}
	typed := oneTool(f, []manifest.Arg{
		{Name: "url", Type: "string", Required: true},
		{Name: "count", Type: "integer"},
		{Name: "ratio", Type: "number"},
		{Name: "force", Type: "boolean"},
	})
	free := oneTool(f, nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		if argv, err := typed.Argv(data); err == nil {
			if len(argv) == 0 || len(argv) > 4 {
				t.Fatalf("%q: argv %q", data, argv)
			}
			for i, w := range argv {
				if strings.IndexByte(w, 0) >= 0 {
					t.Fatalf("%q: NUL in %q", data, w)
				}
				switch {
				case i == 1 && w != "" && strings.Trim(w, "-0123456789") != "":
					t.Fatalf("%q: count %q is not an integer", data, w)
				case i == 2 && w != "" && !json.Valid([]byte(w)):
					t.Fatalf("%q: ratio %q is not a number", data, w)
				case i == 3 && w != "true" && w != "false":
					t.Fatalf("%q: force %q", data, w)
				}
			}
		}
		if argv, err := free.Argv(data); err == nil {
			for _, w := range argv {
				if strings.IndexByte(w, 0) >= 0 {
					t.Fatalf("%q: NUL in %q", data, w)
				}
			}
		}
	})
}

package catalog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// compile checks a tool's schema against the JSON Schema 2020-12
// meta-schema with a second, independent library, and returns it compiled.
func compile(t *testing.T, tool *Tool) *santhosh.Schema {
	t.Helper()
	doc, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	v, err := santhosh.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	if err := c.AddResource("tool.json", v); err != nil {
		t.Fatalf("%s: %v\n%s", tool.Name, err, doc)
	}
	s, err := c.Compile("tool.json")
	if err != nil {
		t.Fatalf("%s: schema is not valid JSON Schema 2020-12: %v\n%s", tool.Name, err, doc)
	}
	return s
}

// sample is an instance that fills every declared arg with a value of its
// type, and what argv it must give.
func sample(tool *Tool) (map[string]any, []string) {
	in := map[string]any{}
	var argv []string
	if tool.FreeForm {
		in[FreeFormArgs] = []any{"a b", "--flag"}
		return in, []string{"a b", "--flag"}
	}
	for i, a := range tool.Args {
		switch schemaType(a.Type) {
		case "integer":
			in[a.Name] = float64(i + 1)
			argv = append(argv, strconv.Itoa(i+1))
		case "number":
			in[a.Name] = 1.5
			argv = append(argv, "1.5")
		case "boolean":
			in[a.Name] = true
			argv = append(argv, "true")
		default:
			in[a.Name] = "v " + a.Name
			argv = append(argv, "v "+a.Name)
		}
	}
	return in, argv
}

// TestCorpusSchemas builds the tool of every command in the 66 real
// manifests and checks each schema with an independent JSON Schema library:
// it is valid 2020-12, accepts a full call, and refuses a wrong type, an
// unknown property and a missing required arg as fledge's own check does.
func TestCorpusSchemas(t *testing.T) {
	files, err := filepath.Glob("../manifest/testdata/corpus/*.toml")
	if err != nil || len(files) != 66 {
		t.Fatalf("want the 66 corpus manifests, found %d (%v)", len(files), err)
	}
	f := &lockfile.File{}
	names := map[string]bool{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := manifest.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// Two owners publish a fledge-plugin-todo; one plugins.toml holds
		// each name once.
		name := m.Plugin.Name
		for names[name] {
			name += "-2"
		}
		names[name] = true
		f.Plugins = append(f.Plugins, lockfile.Plugin{
			Name: name, Commands: m.CommandNames(), CommandDetails: m.Commands,
			Protocol: m.Plugin.Protocol, Runtime: m.Plugin.Runtime,
		})
	}
	c := Build(f, nil, nil)
	typed := 0
	for _, tool := range c.Tools {
		s := compile(t, tool)
		in, want := sample(tool)
		if err := s.Validate(in); err != nil {
			t.Errorf("%s: a full call fails the schema: %v", tool.Name, err)
		}
		raw, _ := json.Marshal(in)
		got, err := tool.Argv(raw)
		if err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		} else if !equal(got, want) {
			t.Errorf("%s: argv %q, want %q", tool.Name, got, want)
		}
		bad := []map[string]any{{"not_an_arg_" + tool.Name: "x"}}
		if tool.FreeForm {
			bad = append(bad, map[string]any{FreeFormArgs: "not a list"})
		} else {
			typed++
			wrong := map[string]any{}
			for k, v := range in {
				wrong[k] = v
			}
			wrong[tool.Args[0].Name] = []any{1}
			bad = append(bad, wrong)
			for _, a := range tool.Args {
				if a.Required {
					missing := map[string]any{}
					for k, v := range in {
						if k != a.Name {
							missing[k] = v
						}
					}
					bad = append(bad, missing)
					break
				}
			}
		}
		for _, b := range bad {
			raw, _ := json.Marshal(b)
			if s.Validate(b) == nil {
				t.Errorf("%s: the schema accepts %s", tool.Name, raw)
			}
			if _, err := tool.Argv(raw); err == nil {
				t.Errorf("%s: Argv accepts %s", tool.Name, raw)
			}
		}
	}
	if len(c.Tools) < 66 || typed == 0 {
		t.Fatalf("only %d tools (%d typed) from the corpus", len(c.Tools), typed)
	}
	// Both todo plugins provide "todo": the one collision, each tool
	// named after its plugin.
	wantCol := []Collision{{Command: "todo", Plugins: []string{"fledge-plugin-todo", "fledge-plugin-todo-2"}, Tools: []string{"todo.todo", "todo-2.todo"}}}
	if got, _ := json.Marshal(c.Collisions); string(got) != mustJSON(wantCol) || len(c.Skipped) != 0 {
		t.Errorf("corpus: collisions %s, skipped %v", got, c.Skipped)
	}
}

// TestSchemaShape pins a typed schema: properties in declaration order,
// JSON types, required list, no other properties; and the free-form one.
func TestSchemaShape(t *testing.T) {
	typed := inputSchema([]manifest.Arg{
		{Name: "target", Type: "string", Required: true, Description: "where\x1b[31m to"},
		{Name: "count", Type: "integer"},
		{Name: "ratio", Type: "number"},
		{Name: "force", Type: "boolean"},
		{Name: "path", Type: "file"},
	})
	got, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"target":{"type":"string","description":"where to"},` +
		`"count":{"type":"integer"},"ratio":{"type":"number"},"force":{"type":"boolean"},` +
		`"path":{"type":"string","description":"(declared type \"file\", taken as a string)"}},"required":["target"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("typed schema\n got %s\nwant %s", got, want)
	}
	free, _ := json.Marshal(inputSchema(nil))
	want = `{"type":"object","properties":{"args":{"type":"array","items":{"type":"string"},"description":"The command's arguments, passed verbatim in this order (it declares no typed arguments)."}},"additionalProperties":false}`
	if string(free) != want {
		t.Errorf("free-form schema\n got %s\nwant %s", free, want)
	}
	for _, tool := range []*Tool{{Name: "typed", InputSchema: typed}, {Name: "free", InputSchema: inputSchema(nil)}} {
		compile(t, tool)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestInputSchemaJSON: the schema a tool is listed with is, byte for
// byte, what the schema package encodes for its InputSchema (which
// validates calls and which tools --json shows), for every shape of args:
// none, optional only, required ones, unknown and empty types, names and
// descriptions with HTML characters, quotes, U+2028, control characters
// and invalid UTF-8.
func TestInputSchemaJSON(t *testing.T) {
	for i, args := range [][]manifest.Arg{
		nil,
		{{Name: "x"}},
		{{Name: "count", Type: "integer"}, {Name: "ratio", Type: "number", Description: "  a ratio  "}},
		{{Name: "url", Type: "string", Required: true, Description: "Where"}, {Name: "force", Type: "boolean", Required: true}},
		{{Name: "a<b>&c", Type: "string", Required: true, Description: "say \"hi\" <now> & \u2028 then\x1b[31m red\xff"}},
		{{Name: "odd", Type: "path\"<x>", Description: "a file"}, {Name: "none", Type: "", Required: true}},
		{{Name: "weird\xfe", Type: "integer", Required: false, Description: "\u202etxt.exe"}},
	} {
		want, err := json.Marshal(inputSchema(args))
		if err != nil {
			t.Fatal(err)
		}
		if got := inputSchemaJSON(args); !bytes.Equal(got, want) {
			t.Errorf("args %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

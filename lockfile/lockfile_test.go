package lockfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/corvidlabs/fledge-go/manifest"
)

// rustLayout is plugins.toml as the Rust fledge writes it
// (toml::to_string_pretty of its registry struct): no format_version, a
// local date in installed, optional pinned_ref/runtime/capabilities.
const rustLayout = `[[plugins]]
name = "fledge-plugin-deps"
source = "CorvidLabs/fledge-plugin-deps"
version = "0.2.0"
installed = "2025-01-31"
commands = ["deps"]
pinned_ref = "v0.2.0"

[plugins.capabilities]
exec = true
store = false
metadata = true
filesystem = "project"
network = false

[[plugins]]
name = "fledge-plugin-hello"
source = "/home/me/src/fledge-plugin-hello"
version = "1.0.0"
installed = "2025-02-14"
commands = [
    "hello",
    "hi",
]

[plugins.capabilities]
exec = false
store = true
metadata = false
network = true

[[plugins]]
name = "fledge-plugin-bare"
source = "someone/fledge-plugin-bare"
version = "0.0.1"
installed = "2024-12-01"
runtime = "wasm"
`

func newStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	return NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, ".plugins.toml.lock"))
}

func TestParseRustLayout(t *testing.T) {
	f, err := Parse([]byte(rustLayout))
	if err != nil {
		t.Fatal(err)
	}
	if f.FormatVersion != 0 {
		t.Errorf("FormatVersion = %d, want 0 for a Rust file", f.FormatVersion)
	}
	if len(f.Plugins) != 3 {
		t.Fatalf("got %d plugins, want 3", len(f.Plugins))
	}
	deps := f.Plugins[0]
	want := Plugin{
		Name: "fledge-plugin-deps", Source: "CorvidLabs/fledge-plugin-deps", Version: "0.2.0",
		Installed: "2025-01-31", Commands: []string{"deps"}, PinnedRef: "v0.2.0",
		Capabilities: manifest.Capabilities{Exec: true, Metadata: true, Filesystem: "project"},
	}
	if !reflect.DeepEqual(deps, want) {
		t.Errorf("deps entry:\n got %+v\nwant %+v", deps, want)
	}
	if got := f.Plugins[1].Commands; !reflect.DeepEqual(got, []string{"hello", "hi"}) {
		t.Errorf("hello commands = %q", got)
	}
	if got := f.Plugins[1].Capabilities; !got.Equal(manifest.Capabilities{Store: true, Network: true}) {
		t.Errorf("hello capabilities = %+v", got)
	}
	// commands is #[serde(default)] in Rust: absent means empty, and we
	// never hand out nil (JSON output must say [] not null).
	if got := f.Plugins[2].Commands; got == nil || len(got) != 0 {
		t.Errorf("bare commands = %#v, want empty non-nil", got)
	}
	if f.Plugins[2].Runtime != "wasm" {
		t.Errorf("bare runtime = %q, want wasm", f.Plugins[2].Runtime)
	}
	if !f.Plugins[2].Capabilities.IsZero() {
		t.Errorf("bare capabilities = %+v, want none", f.Plugins[2].Capabilities)
	}
}

// A Rust file survives Parse → Marshal → Parse with every Rust field intact,
// and what we write is still a file the Rust layout can describe: the same
// [[plugins]] keys under the same names.
func TestRustLayoutRoundTrip(t *testing.T) {
	f, err := Parse([]byte(rustLayout))
	if err != nil {
		t.Fatal(err)
	}
	data, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(data)
	if err != nil {
		t.Fatalf("re-parse of our own output: %v\n%s", err, data)
	}
	if g.FormatVersion != FormatVersion {
		t.Errorf("written format_version = %d, want %d", g.FormatVersion, FormatVersion)
	}
	for _, p := range f.Plugins {
		q, ok := g.Get(p.Name)
		if !ok {
			t.Errorf("%s lost in round trip", p.Name)
			continue
		}
		if !reflect.DeepEqual(p, *q) {
			t.Errorf("%s changed in round trip:\n got %+v\nwant %+v", p.Name, *q, p)
		}
	}
	// Read back generically: the Rust keys are there under their Rust names.
	var raw struct {
		Plugins []map[string]any `toml:"plugins"`
	}
	if err := toml.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var deps map[string]any
	for _, p := range raw.Plugins {
		if p["name"] == "fledge-plugin-deps" {
			deps = p
		}
	}
	if deps == nil {
		t.Fatalf("no fledge-plugin-deps table in\n%s", data)
	}
	for k, v := range map[string]any{"source": "CorvidLabs/fledge-plugin-deps", "version": "0.2.0", "installed": "2025-01-31", "pinned_ref": "v0.2.0"} {
		if deps[k] != v {
			t.Errorf("written %s = %v, want %v", k, deps[k], v)
		}
	}
	caps, _ := deps["capabilities"].(map[string]any)
	if caps["exec"] != true || caps["metadata"] != true || caps["store"] != false || caps["filesystem"] != "project" {
		t.Errorf("written capabilities = %v", caps)
	}
	// Sorted by name, so the file is deterministic.
	if g.Plugins[0].Name != "fledge-plugin-bare" || g.Plugins[2].Name != "fledge-plugin-hello" {
		t.Errorf("plugins not sorted by name: %s, %s, %s", g.Plugins[0].Name, g.Plugins[1].Name, g.Plugins[2].Name)
	}
	again, err := Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, again) {
		t.Errorf("Marshal is not stable:\nfirst:\n%s\nsecond:\n%s", data, again)
	}
}

// Every field fledge adds survives a round trip through the store.
func TestStoreRoundTripOwnFields(t *testing.T) {
	s := newStore(t)
	p := Plugin{
		Name: "fledge-plugin-x", Source: "o/fledge-plugin-x", Version: "1.2.3",
		Installed: "2026-01-02T03:04:05Z", Commands: []string{"x", "y"}, PinnedRef: "^1.2",
		Capabilities: manifest.Capabilities{Store: true},
		Kind:         KindGit, URL: "https://example.com/o/fledge-plugin-x", RefKind: "tag",
		Commit:     strings.Repeat("a", 40),
		SourceHash: "fh1:" + strings.Repeat("1", 64), TreeHash: "fh1:" + strings.Repeat("2", 64),
		ManifestHash: "sha256:" + strings.Repeat("3", 64), Protocol: "fledge-v1",
		Requested:    manifest.Capabilities{Exec: true, Store: true, Network: true, Filesystem: "project"},
		Hooks:        map[string]string{"build": "make", "post_install": "./setup.sh"},
		BuildCommand: "make",
		Runtime:      "wasm",
		Description:  "does x",
		CommandDetails: []manifest.Command{
			{Name: "x", Description: "run x", Binary: "bin/x", Dangerous: true,
				Args: []manifest.Arg{{Name: "path", Type: "string", Required: true, Description: "where"}}},
			{Name: "y", Binary: "bin/y", Args: []manifest.Arg{}},
		},
	}
	if err := s.Update(func(f *File) error { f.Put(p); return nil }); err != nil {
		t.Fatal(err)
	}
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	got, ok := f.Get(p.Name)
	if !ok {
		t.Fatal("entry missing after Update")
	}
	if !reflect.DeepEqual(*got, p) {
		t.Errorf("round trip:\n got %+v\nwant %+v", *got, p)
	}
	if got.IsLocal() {
		t.Error("git entry reported local")
	}
}

func TestLoadMissingAndEmpty(t *testing.T) {
	s := newStore(t)
	f, err := s.Load()
	if err != nil || len(f.Plugins) != 0 {
		t.Fatalf("missing file: %+v, %v", f, err)
	}
	for _, data := range []string{"", "  \n\t\n"} {
		if err := os.WriteFile(s.Path(), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := s.Load()
		if err != nil || len(f.Plugins) != 0 {
			t.Errorf("empty file %q: %+v, %v", data, f, err)
		}
	}
}

func TestCorruptRefusedAndUntouched(t *testing.T) {
	cases := []struct {
		name string
		data string
		line int
	}{
		{"syntax", "[[plugins]]\nname = \"a\"\nsource = \n", 3},
		{"unterminated string", "[[plugins]]\nname = \"a\nsource = \"b\"\n", 2},
		{"wrong type", "[[plugins]]\nname = \"a\"\ncommands = \"x\"\n", 3},
		{"duplicate key", "[[plugins]]\nname = \"a\"\nname = \"b\"\n", 3},
		{"garbage", "\x00\x01\x02 not toml at all", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if err := os.WriteFile(s.Path(), []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load()
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Load error = %v (%T), want *CorruptError", err, err)
			}
			if ce.Line != tc.line {
				t.Errorf("Line = %d, want %d (err %v)", ce.Line, tc.line, err)
			}
			if ce.Column < 1 {
				t.Errorf("Column = %d, want ≥1", ce.Column)
			}
			if ce.Path != s.Path() {
				t.Errorf("Path = %q, want %q", ce.Path, s.Path())
			}
			if !strings.Contains(err.Error(), s.Path()) || !strings.Contains(err.Error(), "will not overwrite") {
				t.Errorf("message %q should name the file and say it is kept", err)
			}

			called := false
			err = s.Update(func(f *File) error {
				called = true
				f.Put(Plugin{Name: "new"})
				return nil
			})
			if !errors.As(err, &ce) {
				t.Errorf("Update error = %v, want *CorruptError", err)
			}
			if called {
				t.Error("Update ran fn on a corrupt file")
			}
			after, err := os.ReadFile(s.Path())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, []byte(tc.data)) {
				t.Errorf("corrupt file changed by Update:\n%q\n→\n%q", tc.data, after)
			}
			fi, _ := os.Stat(s.Path())
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode changed to %v", fi.Mode().Perm())
			}
		})
	}
}

func TestFutureFormatRefusedAndUntouched(t *testing.T) {
	s := newStore(t)
	data := []byte("format_version = 2\n\n[[plugins]]\nname = \"a\"\nsource = \"o/a\"\nversion = \"1.0.0\"\ninstalled = \"x\"\nshiny_new_field = 1\n")
	if err := os.WriteFile(s.Path(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Load()
	var fe *FutureError
	if !errors.As(err, &fe) {
		t.Fatalf("Load error = %v (%T), want *FutureError", err, err)
	}
	if fe.Version != 2 || fe.Path != s.Path() {
		t.Errorf("FutureError = %+v", fe)
	}
	if !strings.Contains(err.Error(), "upgrade") {
		t.Errorf("message %q should say to upgrade", err)
	}
	called := false
	err = s.Update(func(f *File) error { called = true; return nil })
	if !errors.As(err, &fe) || called {
		t.Errorf("Update error = %v, fn called = %v; want *FutureError and no call", err, called)
	}
	after, _ := os.ReadFile(s.Path())
	if !bytes.Equal(after, data) {
		t.Errorf("future file changed:\n%s", after)
	}
	if _, err := Parse([]byte("format_version = 1\n")); err != nil {
		t.Errorf("current format_version refused: %v", err)
	}
}

func TestOversizedRefused(t *testing.T) {
	s := newStore(t)
	f, err := os.Create(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: big without costing disk.
	if err := f.Truncate(MaxSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := s.Load(); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Load of %d bytes: err = %v, want size refusal", MaxSize+1, err)
	}
	if err := s.Update(func(*File) error { return nil }); err == nil {
		t.Error("Update over an oversized file succeeded")
	}
	if fi, _ := os.Stat(s.Path()); fi.Size() != MaxSize+1 {
		t.Errorf("oversized file rewritten: size %d", fi.Size())
	}
}

func TestUpdateFnErrorWritesNothing(t *testing.T) {
	s := newStore(t)
	if err := s.Update(func(f *File) error { f.Put(Plugin{Name: "a", Commands: []string{}}); return nil }); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path())
	boom := errors.New("boom")
	err := s.Update(func(f *File) error { f.Put(Plugin{Name: "b"}); return boom })
	if !errors.Is(err, boom) {
		t.Errorf("Update error = %v, want fn's error", err)
	}
	after, _ := os.ReadFile(s.Path())
	if !bytes.Equal(before, after) {
		t.Errorf("file changed although fn failed:\n%s", after)
	}
	// No temp files left beside it.
	ents, _ := os.ReadDir(filepath.Dir(s.Path()))
	for _, e := range ents {
		if e.Name() != "plugins.toml" && e.Name() != ".plugins.toml.lock" {
			t.Errorf("stray file %s", e.Name())
		}
	}
}

func TestUpdateCreatesDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	s := NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, ".lock"))
	if err := s.Update(func(f *File) error { f.Put(Plugin{Name: "p"}); return nil }); err != nil {
		t.Fatal(err)
	}
	f, err := s.Load()
	if err != nil || len(f.Plugins) != 1 {
		t.Fatalf("%+v %v", f, err)
	}
}

func TestResolve(t *testing.T) {
	f := &File{Plugins: []Plugin{
		{Name: "fledge-plugin-deps", Commands: []string{"deps"}},
		{Name: "fledge-plugin-dup"},
		{Name: "fledge-dup"},
		{Name: "solo", Commands: []string{"s1", "s2"}},
		{Name: "exact"},
		{Name: "fledge-plugin-exact"},
	}}
	cases := []struct {
		query     string
		want      string
		ambiguous []string
		missing   bool
	}{
		{query: "fledge-plugin-deps", want: "fledge-plugin-deps"},
		{query: "deps", want: "fledge-plugin-deps"},
		{query: "fledge-deps", want: "fledge-plugin-deps"},
		{query: "plugin-deps", want: "fledge-plugin-deps"}, // Rust's: fledge-<name>
		{query: "plugin-dup", want: "fledge-plugin-dup"},
		{query: "plugin-solo", missing: true},
		{query: "solo", want: "solo"},
		{query: "fledge-solo", want: "solo"},
		{query: "fledge-plugin-solo", want: "solo"},
		{query: "fledge-dup", want: "fledge-dup"},               // exact beats short
		{query: "fledge-plugin-dup", want: "fledge-plugin-dup"}, // exact beats short
		{query: "dup", ambiguous: []string{"fledge-dup", "fledge-plugin-dup"}},
		{query: "exact", want: "exact"},
		{query: "nope", missing: true},
		{query: "", missing: true},
		{query: "s1", missing: true}, // a command is not a plugin name
		{query: "Deps", missing: true},
	}
	for _, tc := range cases {
		p, err := f.Resolve(tc.query)
		switch {
		case tc.missing:
			if !errors.Is(err, ErrNotInstalled) {
				t.Errorf("Resolve(%q) = %v, %v; want ErrNotInstalled", tc.query, p, err)
			}
		case tc.ambiguous != nil:
			var ae *AmbiguousError
			if !errors.As(err, &ae) {
				t.Errorf("Resolve(%q) = %v, %v; want *AmbiguousError", tc.query, p, err)
				continue
			}
			if !reflect.DeepEqual(ae.Candidates, tc.ambiguous) || ae.Name != tc.query {
				t.Errorf("Resolve(%q) ambiguity = %+v, want %q", tc.query, ae, tc.ambiguous)
			}
			for _, c := range tc.ambiguous {
				if !strings.Contains(err.Error(), c) {
					t.Errorf("message %q does not name %s", err, c)
				}
			}
		default:
			if err != nil || p == nil || p.Name != tc.want {
				t.Errorf("Resolve(%q) = %v, %v; want %s", tc.query, p, err, tc.want)
			}
		}
	}
	// Resolve returns a pointer into the file, so callers can edit in place.
	p, _ := f.Resolve("deps")
	p.Version = "9.9.9"
	if f.Plugins[0].Version != "9.9.9" {
		t.Error("Resolve returned a copy")
	}
}

func TestShortName(t *testing.T) {
	for in, want := range map[string]string{
		"fledge-plugin-deps": "deps",
		"fledge-deps":        "deps",
		"deps":               "deps",
		"fledge-":            "fledge-",
		"plugin-x":           "plugin-x",
		"fledge-plugin-":     "plugin-",
	} {
		if got := ShortName(in); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPutRemoveCommandOwner(t *testing.T) {
	var f File
	f.Put(Plugin{Name: "a", Version: "1", Commands: []string{"x"}})
	f.Put(Plugin{Name: "b", Commands: []string{"y", "z"}})
	f.Put(Plugin{Name: "a", Version: "2", Commands: []string{"x"}})
	if len(f.Plugins) != 2 || f.Plugins[0].Version != "2" {
		t.Fatalf("Put did not replace in place: %+v", f.Plugins)
	}
	if p, ok := f.CommandOwner("z"); !ok || p.Name != "b" {
		t.Errorf("CommandOwner(z) = %v, %v", p, ok)
	}
	if _, ok := f.CommandOwner("b"); ok {
		t.Error("CommandOwner matched a plugin name")
	}
	if !f.Remove("a") || f.Remove("a") || len(f.Plugins) != 1 {
		t.Errorf("Remove: %+v", f.Plugins)
	}
}

// Names and commands that differ only by case are found, with the installed
// spelling; an exact match is not a twin (it is the same name).
func TestCaseTwins(t *testing.T) {
	f := &File{Plugins: []Plugin{
		{Name: "fledge-plugin-a", Commands: []string{"deploy", "ship"}},
		{Name: "Other", Commands: []string{"Build"}},
	}}
	for name, want := range map[string]string{
		"Fledge-Plugin-A": "fledge-plugin-a", "FLEDGE-PLUGIN-A": "fledge-plugin-a", "other": "Other",
		"fledge-plugin-a": "", "Other": "", "fledge-plugin-b": "",
	} {
		p, ok := f.CaseTwin(name)
		if got := ""; ok {
			got = p.Name
			if got != want {
				t.Errorf("CaseTwin(%q) = %q, want %q", name, got, want)
			}
		} else if want != "" {
			t.Errorf("CaseTwin(%q) found nothing, want %q", name, want)
		}
	}
	for cmd, want := range map[string][2]string{
		"Deploy": {"fledge-plugin-a", "deploy"}, "SHIP": {"fledge-plugin-a", "ship"}, "build": {"Other", "Build"},
		"deploy": {}, "Build": {}, "other": {},
	} {
		p, spelling, ok := f.CommandCaseTwin(cmd)
		var got [2]string
		if ok {
			got = [2]string{p.Name, spelling}
		}
		if got != want {
			t.Errorf("CommandCaseTwin(%q) = %q, want %q", cmd, got, want)
		}
	}
}

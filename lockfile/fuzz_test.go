package lockfile

import (
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/manifest"
)

// FuzzParse checks that Parse never panics, only fails with the typed
// errors, and that whatever it accepts survives Marshal and a re-parse
// unchanged (up to the normalisations Marshal promises: sorted plugins and
// the current format_version).
func FuzzParse(f *testing.F) {
	f.Add([]byte(rustLayout))
	f.Add([]byte(rustLayout + "runtime = \"wasm\"\n"))
	own, err := Marshal(&File{Plugins: []Plugin{
		{Name: "b", Source: "o/b", Version: "1.0.0", Installed: "2026-01-01T00:00:00Z", Commands: []string{"b"},
			Kind: KindGit, Commit: "0123456789abcdef0123456789abcdef01234567", Hooks: map[string]string{"build": "make"}},
		{Name: "a", Source: "/src/a", Version: "0.1.0", Installed: "2026-01-01T00:00:00Z", Commands: []string{}, Kind: KindLocalLink},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(own)
	f.Add([]byte("format_version = 2\n"))
	f.Add([]byte("[[plugins]]\nname = \"a\"\n[plugins.hooks]\n"))
	f.Add([]byte("plugins = []\n"))
	f.Add([]byte("[[plugins]]\nname = 'c'\n[[plugins.command_details]]\nname = 'x'\n[[plugins.command_details.args]]\nname = 'a'\ntype = 'string'\n"))
	f.Add([]byte("[[plugins]]\nname = 'x'\ncommands = ['a', 'a']\n[plugins.requested]\nexec = true\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		first, err := Parse(data)
		if err != nil {
			var ce *CorruptError
			var fe *FutureError
			if !errors.As(err, &ce) && !errors.As(err, &fe) {
				t.Fatalf("Parse error %v is %T, want *CorruptError or *FutureError", err, err)
			}
			return
		}
		out, err := Marshal(first)
		if err != nil {
			// Parse accepted a value Marshal cannot write: fledge would
			// then fail on every Update of this file.
			t.Fatalf("Marshal of parsed value: %v", err)
		}
		second, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parse of Marshal output: %v\ninput:\n%q\noutput:\n%s", err, data, out)
		}
		want := normalise(first)
		if got := normalise(second); !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip changed the value:\n got %+v\nwant %+v\noutput:\n%s", got, want, out)
		}
	})
}

func normalise(f *File) *File {
	out := &File{FormatVersion: FormatVersion}
	out.Plugins = append([]Plugin(nil), f.Plugins...)
	sort.SliceStable(out.Plugins, func(i, j int) bool { return out.Plugins[i].Name < out.Plugins[j].Name })
	for i := range out.Plugins {
		p := &out.Plugins[i]
		if len(p.Hooks) == 0 {
			p.Hooks = nil
		}
		// Marshal writes a nil args list as args = [], which reads back
		// empty: the same value for every reader.
		p.CommandDetails = append([]manifest.Command(nil), p.CommandDetails...)
		for j := range p.CommandDetails {
			if len(p.CommandDetails[j].Args) == 0 {
				p.CommandDetails[j].Args = nil
			}
		}
	}
	return out
}

// FuzzCommandIndex checks that for any plugins.toml Parse accepts, the
// command index built from it answers every command (and a few others)
// exactly as File.CommandOwner does, and that lookups in arbitrary bytes
// never panic.
func FuzzCommandIndex(f *testing.F) {
	f.Add([]byte(rustLayout), "hello")
	f.Add([]byte("[[plugins]]\nname = \"a\"\ncommands = [\"x\", \"x\"]\n[[plugins]]\nname = \"b\"\ncommands = [\"x\", \"y\"]\n[plugins.hooks]\nbuild = \"make\"\n"), "y")
	f.Add([]byte("[[plugins]]\nname = \"a\"\ndescription = \"\\u2028\\t\\\"q\\\"\"\ncommands = [\"c\"]\n[[plugins.command_details]]\nname = \"c\"\nargs = [{name = \"n\", type = \"integer\"}]\n"), "c")
	f.Fuzz(func(t *testing.T, data []byte, extra string) {
		lookupIndex(data, extra) // arbitrary bytes as an index: no panic
		installedFromIndex(data)
		file, err := Parse(data)
		if err != nil {
			return
		}
		body, err := buildIndex(file)
		if err != nil {
			t.Fatalf("buildIndex: %v", err)
		}
		commands := []string{extra, "", "\t", "nope"}
		for _, p := range file.Plugins {
			commands = append(commands, p.Commands...)
		}
		for _, c := range commands {
			want, wantOK := file.CommandOwner(c)
			got, found, ok := lookupIndex(body, c)
			if !ok {
				if c == "" || strings.ContainsAny(c, "\t\n") {
					continue // not a command name: the caller decodes the file
				}
				t.Fatalf("%q: index unusable", c)
			}
			if found != wantOK || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: index gives %+v %v, decoding gives %+v %v", c, got, found, want, wantOK)
			}
		}
		// The listing line says what decoding says.
		if in, ok := installedFromIndex(body); !ok || !reflect.DeepEqual(in, file.Installed()) {
			t.Fatalf("listing %+v %v, decoding gives %+v", in, ok, file.Installed())
		}
	})
}

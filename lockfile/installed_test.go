package lockfile

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// Installed answers from the index exactly what decoding the whole file
// answers: every plugin (also one that provides no command, and one whose
// only command another plugin provides first), each command once with its
// owner and description. Lookups of commands read the same index as before.
func TestInstalledMatchesDecode(t *testing.T) {
	s, idx := indexFixture(t)
	if err := s.Update(func(f *File) error {
		f.Put(Plugin{Name: "fledge-plugin-hookonly", Source: "x/hookonly", Version: "1", Installed: "2026-01-01"})
		f.Put(Plugin{Name: "shadowed", Source: "x/shadowed", Version: "1", Installed: "2026-01-01", Commands: []string{"deps"}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := f.Installed()
	for _, p := range []string{"fledge-plugin-hookonly", "shadowed", "fledge-plugin-full", "zz-other"} {
		if !contains(want.Plugins, p) {
			t.Fatalf("decoded listing lacks %s: %+v", p, want.Plugins)
		}
	}
	for round, what := range []string{"built", "read back"} {
		got, err := s.Installed(idx)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s index: got %+v, %v\nwant %+v", what, got, err, want)
		}
		if _, err := os.Stat(idx); err != nil {
			t.Fatalf("round %d: no index: %v", round, err)
		}
		for _, c := range []string{"deps", "hello", "full", "zz", "#", ""} {
			wantP, wantOK := f.CommandOwner(c)
			p, ok, err := s.CommandOwner(c, idx, "")
			if err != nil || ok != wantOK || !reflect.DeepEqual(p, wantP) {
				t.Fatalf("%s index, %q: got %+v %v %v", what, c, p, ok, err)
			}
		}
	}
	// Descriptions: the command's own, else the plugin's.
	for _, c := range want.Commands {
		switch c.Name {
		case "full":
			if c.Description != "d" || c.Plugin != "fledge-plugin-full" {
				t.Errorf("full: %+v", c)
			}
		case "fu":
			if c.Description != f.Plugins[f.Index("fledge-plugin-full")].Description {
				t.Errorf("fu: %+v", c)
			}
		case "hello":
			if c.Plugin != "fledge-plugin-hello" {
				t.Errorf("hello is owned by the first plugin in the file: %+v", c)
			}
		}
	}
}

// Installed reads the index: a name altered there (length kept) is what
// comes back, and a damaged index is a miss, never an error.
func TestInstalledUsesIndex(t *testing.T) {
	s, idx := indexFixture(t)
	want, err := s.Installed(idx)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(idx)
	marked := bytes.Replace(good, []byte(`"zz-other"`), []byte(`"zz-OTHER"`), 1)
	os.WriteFile(idx, marked, 0o644)
	got, _ := s.Installed(idx)
	if !contains(got.Plugins, "zz-OTHER") {
		t.Fatalf("listing did not read the index: %+v", got.Plugins)
	}
	for name, data := range map[string][]byte{
		"truncated":  good[:len(good)-3],
		"bad json":   bytes.Replace(good, []byte(`{"Plugins"`), []byte(`["Plugins"`), 1),
		"no listing": bytes.Replace(good, []byte("#\t"), []byte("x\t"), 1),
	} {
		os.WriteFile(idx, data, 0o644)
		got, err := s.Installed(idx)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s index: %+v %v", name, got, err)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

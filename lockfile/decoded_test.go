package lockfile

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// LoadCached answers what Load answers, from its derived file once it is
// written, and sees every change to plugins.toml; a damaged derived file
// is a miss.
func TestLoadCached(t *testing.T) {
	dir := t.TempDir()
	store := NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, "plugins.lock"))
	cache := filepath.Join(dir, "cache", "plugins.decoded")
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "plugins.toml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, wantCached bool) *File {
		t.Helper()
		want, err := store.Load()
		if err != nil {
			t.Fatal(err)
		}
		got, err := store.LoadCached(cache)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: LoadCached = %+v, Load = %+v", what, got, want)
		}
		if _, err := os.Stat(cache); (err == nil) != wantCached {
			t.Fatalf("%s: derived file there = %v, want %v", what, err == nil, wantCached)
		}
		return got
	}
	entry := func(name, cmd string) string {
		return "[[plugins]]\nname = \"" + name + "\"\nsource = \"https://github.com/x/" + name + "\"\nversion = \"1.0.0\"\n" +
			"installed = \"2024-01-01\"\ncommands = [" + cmd + "]\ncommit = \"0123456789abcdef0123456789abcdef01234567\"\n" +
			"[plugins.capabilities]\nexec = true\n"
	}
	write(entry("fledge-plugin-a", `"a"`) + entry("fledge-plugin-b", ``))
	check("first load", true)
	f := check("from the derived file", true)
	if len(f.Plugins) != 2 || f.Plugins[1].Commands == nil || !f.Plugins[0].Capabilities.Exec {
		t.Fatalf("decoded %+v", f.Plugins)
	}
	write(entry("fledge-plugin-a", `"a", "c"`))
	if f := check("after a change", true); len(f.Plugins) != 1 || len(f.Plugins[0].Commands) != 2 {
		t.Fatalf("after a change: %+v", f.Plugins)
	}
	data, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	check("with a damaged derived file", true)
	write("[[plugins]]\nname = \"../x\"\n")
	if _, err := store.LoadCached(cache); err == nil {
		t.Fatal("LoadCached accepted what Load refuses")
	}
}

// A decode is given back exactly: a command detail without args, which
// Parse leaves nil (and gob, used before, read back as empty), is stored
// and read back nil.
func TestLoadCachedKeepsNilAndEmptyApart(t *testing.T) {
	dir := t.TempDir()
	store := NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, "plugins.lock"))
	src := "[[plugins]]\nname = \"fledge-plugin-a\"\nsource = \"https://github.com/x/a\"\ncommands = [\"a\"]\n" +
		"[[plugins.command_details]]\nname = \"a\"\nbinary = \"bin/a\"\n"
	if err := os.WriteFile(filepath.Join(dir, "plugins.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := store.Load()
	if err != nil || len(want.Plugins) != 1 || len(want.Plugins[0].CommandDetails) != 1 || want.Plugins[0].CommandDetails[0].Args != nil {
		t.Fatalf("the fixture does not decode as the test expects: %+v %v", want, err)
	}
	cache := filepath.Join(dir, "cache", "plugins.decoded")
	for _, what := range []string{"decoded", "from the derived file"} {
		got, err := store.LoadCached(cache)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: LoadCached = %+v, %v; want %+v", what, got, err, want)
		}
		if _, err := os.Stat(cache); err != nil {
			t.Fatalf("%s: the decode was not stored: %v", what, err)
		}
	}
}

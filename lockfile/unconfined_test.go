package lockfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Confinement turned off for every plugin (the file's unconfined_by) is
// what each record's Unconfined says, first, whether the file is parsed
// or read back from its decoded copy; a record's own switch shows when
// the file's is off.
func TestUnconfinedForEveryPlugin(t *testing.T) {
	dir := t.TempDir()
	store := NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, "plugins.lock"))
	src := "unconfined_by = 'alice'\nunconfined_at = '2026-11-27T16:00:00Z'\n\n[[plugins]]\nname = 'a'\nsource = '/a'\nversion = '1'\ninstalled = 'x'\ncommands = []\n" +
		"\n[[plugins]]\nname = 'b'\nsource = '/b'\nversion = '1'\ninstalled = 'x'\ncommands = []\nunconfined_by = 'bob'\n"
	if err := os.WriteFile(store.Path(), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache", "plugins.decoded")
	for _, load := range []func() (*File, error){store.Load, func() (*File, error) { return store.LoadCached(cache) }, func() (*File, error) { return store.LoadCached(cache) }} {
		f, err := load()
		if err != nil {
			t.Fatal(err)
		}
		want := "alice for every plugin at 2026-11-27T16:00:00Z (fledge plugins unconfine --all)"
		if f.Unconfined() != want || f.Plugins[0].Unconfined() != want || f.Plugins[1].Unconfined() != want {
			t.Errorf("Unconfined: file %q, a %q, b %q", f.Unconfined(), f.Plugins[0].Unconfined(), f.Plugins[1].Unconfined())
		}
		data, err := Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(strings.TrimSpace(string(data[strings.Index(string(data), "unconfined_by"):])), "unconfined_by = 'alice'") {
			t.Errorf("Marshal:\n%s", data)
		}
	}
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("the decoded copy was not kept: %v", err)
	}
	f, _ := Parse([]byte(strings.Replace(src, "unconfined_by = 'alice'\n", "", 1)))
	if got := f.Plugins[1].Unconfined(); !strings.HasPrefix(got, "bob for this plugin") || f.Plugins[0].Unconfined() != "" {
		t.Errorf("without the file's switch: a %q, b %q", f.Plugins[0].Unconfined(), got)
	}
}

package lockfile_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/lockfile/lockfiletest"
)

// The records fledge writes round-trip exactly, so LoadCached stores them
// (a decode that would not is never stored, and then never saves time).
func TestLoadCachedStoresRealRecords(t *testing.T) {
	dir := t.TempDir()
	store := lockfile.NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, "plugins.lock"))
	err := store.Update(func(f *lockfile.File) error {
		for i := 0; i < 100; i++ {
			f.Put(lockfiletest.Entry(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache", "plugins.decoded")
	want, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, what := range []string{"decoded", "from the derived file"} {
		got, err := store.LoadCached(cache)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: LoadCached differs from Load", what)
		}
		if _, err := os.Stat(cache); err != nil {
			t.Fatalf("%s: the decode was not stored: %v", what, err)
		}
	}
}

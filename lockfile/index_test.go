package lockfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/manifest"
)

// indexFixture is a plugins.toml with the Rust layout's entries plus ones
// with every field fledge records, two plugins claiming one command, and
// the command index beside it.
func indexFixture(t *testing.T) (*Store, string) {
	t.Helper()
	s := newStore(t)
	if err := os.WriteFile(s.Path(), []byte(rustLayout), 0o644); err != nil {
		t.Fatal(err)
	}
	err := s.Update(func(f *File) error {
		f.Put(Plugin{
			Name: "fledge-plugin-full", Source: "example/fledge-plugin-full", Version: "2.0.0",
			Installed: "2026-01-01T00:00:00Z", Commands: []string{"full", "fu"}, PinnedRef: "^2",
			Capabilities: manifest.Capabilities{Exec: true, Filesystem: "project"},
			Description:  "Every field \"quoted\" \u00e9\t<tab>",
			CommandDetails: []manifest.Command{{Name: "full", Description: "d", Binary: "bin/full", Dangerous: true,
				Args: []manifest.Arg{{Name: "a", Type: "string", Required: true}, {Name: "b", Type: "integer", Description: "x"}}},
				{Name: "fu", Binary: "bin/fu"}},
			Kind: KindGit, URL: "https://example.com/fledge-plugin-full", RefKind: "constraint", Tag: "v2.0.0",
			Commit: "0123456789abcdef0123456789abcdef01234567", SourceHash: "fh1:aa", TreeHash: "fh1:bb",
			ManifestHash: "sha256:cc", Protocol: "fledge-v1", Requested: manifest.Capabilities{Exec: true, Store: true},
			Hooks: map[string]string{"build": "make", "post_install": "./setup.sh"}, BuildCommand: "make",
		})
		// zz-other also claims "hello": the first entry in the file wins.
		f.Put(Plugin{Name: "zz-other", Source: "x/zz-other", Version: "1", Installed: "2026-01-01", Commands: []string{"hello", "zz"}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, filepath.Join(filepath.Dir(s.Path()), "cache", "commands.idx")
}

// The index answers exactly what decoding the whole file answers, for every
// command and for unknown ones, whether it was just built or read back.
func TestCommandIndexMatchesDecode(t *testing.T) {
	s, idx := indexFixture(t)
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	commands := []string{"nope", "deps", "hello", "hi", "full", "fu", "zz", "fledge-plugin-full", ""}
	for round, what := range []string{"built", "read back"} {
		for _, c := range commands {
			want, wantOK := f.CommandOwner(c)
			got, ok, err := s.CommandOwner(c, idx, "")
			if err != nil || ok != wantOK || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s index, %q: got %+v %v %v, want %+v %v", what, c, got, ok, err, want, wantOK)
			}
		}
		if _, err := os.Stat(idx); err != nil {
			t.Fatalf("round %d: no index: %v", round, err)
		}
	}
}

// A lookup reads the index: an entry altered there (length kept) is what
// comes back. fledge never writes such a file; this shows which path ran.
func TestCommandIndexIsUsed(t *testing.T) {
	s, idx := indexFixture(t)
	if _, _, err := s.CommandOwner("full", idx, ""); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	marked := bytes.Replace(data, []byte(`"example/fledge-plugin-full" "2.0.0"`), []byte(`"example/fledge-plugin-full" "7.0.0"`), 1)
	if bytes.Equal(marked, data) {
		t.Fatal("index has no version to mark")
	}
	os.WriteFile(idx, marked, 0o644)
	p, ok, err := s.CommandOwner("full", idx, "")
	if err != nil || !ok || p.Version != "7.0.0" {
		t.Fatalf("lookup did not read the index: %+v %v %v", p, ok, err)
	}
}

// Any change to plugins.toml, even one keeping its size and mtime, is
// seen; a file broken after the index was built is reported as corrupt.
func TestCommandIndexFollowsFile(t *testing.T) {
	s, idx := indexFixture(t)
	if p, _, _ := s.CommandOwner("deps", idx, ""); p == nil || p.Capabilities.Exec != true {
		t.Fatalf("deps: %+v", p)
	}
	fi, _ := os.Stat(s.Path())
	data, _ := os.ReadFile(s.Path())
	edit := func(old, new string) {
		t.Helper()
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("no %q in plugins.toml", old)
		}
		data = bytes.Replace(data, []byte(old), []byte(new), 1)
		os.WriteFile(s.Path(), data, 0o644)
		os.Chtimes(s.Path(), fi.ModTime(), fi.ModTime())
	}
	// Corrupt the file without changing its size or mtime.
	edit("exec = true", "exec = 1!=0")
	if _, _, err := s.CommandOwner("deps", idx, ""); err == nil {
		t.Fatal("a corrupt plugins.toml was answered from the index")
	}
	// Swap deps' exec and store grants: same size, same mtime.
	edit("exec = 1!=0\nstore = false", "exec = false\nstore = true")
	p, ok, err := s.CommandOwner("deps", idx, "")
	if err != nil || !ok || p.Capabilities.Exec || !p.Capabilities.Store {
		t.Fatalf("changed grants not seen: %+v %v %v", p, ok, err)
	}
}

// A damaged or foreign index is a miss, never an error or a wrong answer.
func TestCommandIndexDamaged(t *testing.T) {
	s, idx := indexFixture(t)
	want, _, _ := s.CommandOwner("hi", idx, "")
	good, _ := os.ReadFile(idx)
	for name, data := range map[string][]byte{
		"truncated": good[:len(good)-3],
		"empty":     nil,
		"garbage":   bytes.Repeat([]byte{0}, 200),
		"bad entry": bytes.Replace(good, []byte("\t \""), []byte("\t [\""), -1),
		"trailing":  bytes.Replace(good, []byte("\n"), []byte(" t\n"), -1),
	} {
		os.WriteFile(idx, data, 0o644)
		got, ok, err := s.CommandOwner("hi", idx, "")
		if err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s index: %+v %v %v", name, got, ok, err)
		}
	}
}

// Confinement turned off for every plugin (the file's unconfined_by, which
// Parse gives each record) is in the entry the index gives back, on every
// lookup: JSON entries lost it, and every run after the first forgot it.
func TestCommandIndexKeepsUnconfinedForEveryPlugin(t *testing.T) {
	s, idx := indexFixture(t)
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	data = append([]byte("unconfined_by = 'alice'\n"), data...)
	if err := os.WriteFile(s.Path(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, what := range []string{"built", "read back"} {
		p, ok, err := s.CommandOwner("full", idx, "")
		if err != nil || !ok || !strings.HasPrefix(p.Unconfined(), "alice for every plugin") {
			t.Fatalf("%s index: %q %v %v", what, p.Unconfined(), ok, err)
		}
	}
}

// A plugins.toml larger than memoAbove has its digest remembered under its
// stamp: a lookup reads the memo, not the file, while the file stays as
// it was, and a change to the file (size and mtime kept) is still seen.
func TestCommandIndexMemoisesALargeFile(t *testing.T) {
	defer derived.SettleForTest()()
	s, idx := indexFixture(t)
	err := s.Update(func(f *File) error {
		for i := range 200 {
			f.Put(Plugin{Name: fmt.Sprintf("fledge-plugin-pad%03d", i), Source: "x/pad", Version: "1.0.0",
				Installed: "2026-01-01T00:00:00Z", Commands: []string{fmt.Sprintf("pad%03d", i)}, Description: strings.Repeat("padding ", 8)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(s.Path()); err != nil || fi.Size() <= memoAbove {
		t.Fatalf("plugins.toml is %v bytes (%v), want more than %d", fi.Size(), err, memoAbove)
	}
	memo := filepath.Join(filepath.Dir(idx), "plugins.toml.sum")
	if p, ok, err := s.CommandOwner("pad007", idx, memo); err != nil || !ok || p.Name != "fledge-plugin-pad007" {
		t.Fatalf("pad007: %+v %v %v", p, ok, err)
	}
	if _, err := os.Stat(memo); err != nil {
		t.Fatalf("no digest remembered for a %d-byte file: %v", memoAbove, err)
	}
	// Which path ran: the memo's, for this file and not for a small one.
	memoised := 0
	saved := digestFileMemo
	t.Cleanup(func() { digestFileMemo = saved })
	digestFileMemo = func(memo, path string, max int64) (derived.Digest, bool) {
		memoised++
		return saved(memo, path, max)
	}
	if p, ok, err := s.CommandOwner("pad008", idx, memo); err != nil || !ok || p.Name != "fledge-plugin-pad008" || memoised != 1 {
		t.Fatalf("pad008: %+v %v %v, the memo asked %d times, want once", p, ok, err, memoised)
	}
	small, smallIdx := indexFixture(t)
	if _, _, err := small.CommandOwner("deps", smallIdx, memo); err != nil || memoised != 1 {
		t.Fatalf("a small plugins.toml: %v, the memo asked %d times in all, want only for the large one", err, memoised)
	}
	// A change keeping size and mtime changes the stamp (its ctime).
	fi, _ := os.Stat(s.Path())
	data, _ := os.ReadFile(s.Path())
	changed := bytes.Replace(data, []byte(`fledge-plugin-pad009`), []byte(`fledge-plugin-pad00X`), 1)
	if bytes.Equal(changed, data) {
		t.Fatal("nothing to change")
	}
	if err := os.WriteFile(s.Path(), changed, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(s.Path(), fi.ModTime(), fi.ModTime())
	if p, ok, err := s.CommandOwner("pad009", idx, memo); err != nil || !ok || p.Name != "fledge-plugin-pad00X" {
		t.Fatalf("pad009 after the file changed: %+v %v %v, want fledge-plugin-pad00X", p, ok, err)
	}
}

package runner

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/internal/derived/derivedtest"
)

// The fledge-* names of settled PATH directories come from the externals
// index; every change to a directory's entries is seen through it, and the
// programs themselves are looked at every time. (Not parallel: it moves
// the clock stamps are judged by.)
func TestExternalsIndex(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no stamps here: every listing reads the directories")
	}
	derivedtest.Settle(t)
	paths, err := home.New(filepath.Join(t.TempDir(), "fledge"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(paths.Root(), 0o755); err != nil {
		t.Fatal(err)
	}
	bin, empty := filepath.Join(t.TempDir(), "bin"), t.TempDir()
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	pathEnv := bin + string(filepath.ListSeparator) + empty
	program := func(name string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, names ...string) {
		t.Helper()
		var got []string
		for _, e := range Externals(paths, pathEnv) {
			got = append(got, e.Name)
			if e.Path != filepath.Join(bin, ExternalPrefix+e.Name) {
				t.Errorf("%s: %s found at %s", what, e.Name, e.Path)
			}
		}
		if !slices.Equal(got, names) {
			t.Fatalf("%s: externals %q, want %q", what, got, names)
		}
	}
	program("fledge-alpha", 0o755)
	program("fledge-data", 0o644)
	program("unrelated", 0o755)
	want("first listing", "alpha")
	if _, err := os.Stat(paths.ExternalsIndexFile()); err != nil {
		t.Fatalf("no externals index was kept: %v", err)
	}
	// What the index holds is what is listed (fledge never stores a wrong
	// index: this shows which path answered).
	stamps := make([]derived.Digest, 2)
	for i, dir := range []string{bin, empty} {
		stamps[i], _ = derived.Stamp(dir)
	}
	derived.New(paths.ExternalsIndexFile(), externalsIndexKind, stamps...).Put([]byte(encodeNames([][]string{nil, nil})))
	want("an index naming nothing")
	steps := []struct {
		what   string
		change func() error
		want   []string
	}{
		{"a program added", func() error { program("fledge-beta", 0o755); return nil }, []string{"alpha", "beta"}},
		{"a program renamed", func() error {
			return os.Rename(filepath.Join(bin, "fledge-beta"), filepath.Join(bin, "fledge-gamma"))
		}, []string{"alpha", "gamma"}},
		{"a program removed", func() error { return os.Remove(filepath.Join(bin, "fledge-gamma")) }, []string{"alpha"}},
		// Not an entry of the directory: the program is looked at each time.
		{"a program no longer executable", func() error { return os.Chmod(filepath.Join(bin, "fledge-alpha"), 0o644) }, nil},
		{"a program made executable", func() error { return os.Chmod(filepath.Join(bin, "fledge-data"), 0o755) }, []string{"data"}},
	}
	for _, s := range steps {
		derivedtest.NextTick(t)
		if err := s.change(); err != nil {
			t.Fatal(err)
		}
		want(s.what, s.want...)
		want(s.what+", listed again", s.want...)
	}
}

func TestIndexNamesRoundTrip(t *testing.T) {
	for _, names := range [][][]string{
		{},
		{nil},
		{nil, nil},
		{{"fledge-a"}, nil, {"fledge-b", "fledge-c d", "fledge-\nnewline"}},
	} {
		got, ok := decodeNames(encodeNames(names), len(names))
		if !ok || len(got) != len(names) {
			t.Fatalf("%q: decoded %q, %v", names, got, ok)
		}
		for i := range names {
			if !slices.Equal(got[i], names[i]) {
				t.Errorf("%q: directory %d decoded as %q", names, i, got[i])
			}
		}
	}
	if _, ok := decodeNames("fledge-a/fledge-b", 3); ok {
		t.Error("an index for two directories decoded as one for three")
	}
}

// Whatever an index file holds, decoding it either fails or gives back one
// list of names per directory, which encode to the same bytes.
func FuzzIndexNames(f *testing.F) {
	f.Add("fledge-a\x00fledge-b//fledge-c", 3)
	f.Add("", 1)
	f.Add("", 0)
	f.Add("/", 2)
	f.Fuzz(func(t *testing.T, body string, n int) {
		if n < 0 || n > 64 {
			return
		}
		names, ok := decodeNames(body, n)
		if !ok {
			return
		}
		if len(names) != n {
			t.Fatalf("%q for %d directories decoded as %d", body, n, len(names))
		}
		if got := encodeNames(names); got != body {
			t.Fatalf("%q decoded as %q, which encodes as %q", body, names, got)
		}
	})
}

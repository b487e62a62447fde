package lockfile_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/lockfile/lockfiletest"
)

// BenchmarkParse decodes a plugins.toml of n realistic records: what every
// command that reads the file pays before anything else.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run("plugins="+strconv.Itoa(n), func(b *testing.B) {
			f := &lockfile.File{}
			for i := 0; i < n; i++ {
				f.Put(lockfiletest.Entry(i))
			}
			data, err := lockfile.Marshal(f)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := lockfile.Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCommandOwner finds one command's entry through the command
// index, as `fledge <command>` does; compare BenchmarkParse, the cost of
// decoding the whole file, which the index saves while the file is
// unchanged. memo=no hashes plugins.toml at every lookup; memo=yes is a
// run's lookup, which remembers the digest of a file over 16 KiB under
// its stamp (the file settled, as a user's is between installs).
func BenchmarkCommandOwner(b *testing.B) {
	defer derived.SettleForTest()()
	for _, c := range []struct {
		n    int
		memo bool
	}{{10, false}, {10, true}, {100, false}, {100, true}, {1000, false}, {1000, true}} {
		n := c.n
		name := "plugins=" + strconv.Itoa(n) + "/memo=no"
		if c.memo {
			name = "plugins=" + strconv.Itoa(n) + "/memo=yes"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			s := lockfile.NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, "plugins.lock"))
			err := s.Update(func(f *lockfile.File) error {
				for i := 0; i < n; i++ {
					f.Put(lockfiletest.Entry(i))
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			idx := filepath.Join(dir, "cache", "commands.idx")
			memo := ""
			if c.memo {
				memo = filepath.Join(dir, "cache", "plugins.toml.sum")
			}
			want := lockfiletest.Entry(n / 2).Commands[0]
			if _, _, err := s.CommandOwner(want, idx, memo); err != nil { // builds the index
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p, ok, err := s.CommandOwner(want, idx, memo)
				if err != nil || !ok || p.Commands[0] != want {
					b.Fatalf("%s: %v %v", want, ok, err)
				}
			}
		})
	}
}

// BenchmarkInstalled lists every plugin and command through the command
// index, as each shell completion TAB and `fledge --help` do; compare
// BenchmarkParse, the cost of decoding the whole file instead.
func BenchmarkInstalled(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run("plugins="+strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			s := lockfile.NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, "plugins.lock"))
			err := s.Update(func(f *lockfile.File) error {
				for i := 0; i < n; i++ {
					f.Put(lockfiletest.Entry(i))
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			idx := filepath.Join(dir, "cache", "commands.idx")
			if _, err := s.Installed(idx); err != nil { // builds the index
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				in, err := s.Installed(idx)
				if err != nil || len(in.Plugins) != n {
					b.Fatalf("%d plugins, %v", len(in.Plugins), err)
				}
			}
		})
	}
}

// BenchmarkLoadCached reads a plugins.toml of 100 records back from its
// derived file, as fledge mcp's catalog does at start-up; compare
// BenchmarkParse/plugins=100.
func BenchmarkLoadCached(b *testing.B) {
	dir := b.TempDir()
	store := lockfile.NewStore(filepath.Join(dir, "plugins.toml"), filepath.Join(dir, "plugins.lock"))
	err := store.Update(func(f *lockfile.File) error {
		for i := 0; i < 100; i++ {
			f.Put(lockfiletest.Entry(i))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	cache := filepath.Join(dir, "cache", "plugins.decoded")
	if _, err := store.LoadCached(cache); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := store.LoadCached(cache); err != nil {
			b.Fatal(err)
		}
	}
}

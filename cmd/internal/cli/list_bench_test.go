package cli

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/derived/derivedtest"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/lockfile/lockfiletest"
)

// BenchmarkListJSON is list --json in process, for profiling (the end to
// end figure, start-up included, is bench.BenchmarkListJSON), with
// plugins.toml as it is between installs: settled (see derived.Stamp).
// The render sub-benchmarks remove the cache before each listing: the
// first listing after an install or a change of settings.
func BenchmarkListJSON(b *testing.B) {
	for _, c := range []struct {
		n      int
		render bool
	}{{1, false}, {100, false}, {1000, false}, {1000, true}} {
		n := c.n
		name := "plugins=" + strconv.Itoa(n)
		if c.render {
			name += "/render"
		}
		b.Run(name, func(b *testing.B) {
			root := filepath.Join(b.TempDir(), "fledge")
			paths, err := home.New(root)
			if err != nil {
				b.Fatal(err)
			}
			err = lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock()).Update(func(f *lockfile.File) error {
				for i := 0; i < n; i++ {
					f.Put(lockfiletest.Entry(i))
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			derivedtest.WaitSettled(b, paths.PluginsFile())
			s := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard,
				Getenv: func(k string) string {
					if k == home.EnvHome {
						return root
					}
					return ""
				}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if c.render {
					b.StopTimer()
					if err := os.RemoveAll(paths.CacheDir()); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if code := Main([]string{"plugins", "list", "--json"}, s, "dev"); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

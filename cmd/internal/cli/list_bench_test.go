package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/lockfile"
)

// BenchmarkListJSON is list --json in process, for profiling (the end to
// end figure, start-up included, is bench.BenchmarkListJSON).
func BenchmarkListJSON(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run("plugins="+strconv.Itoa(n), func(b *testing.B) {
			root := filepath.Join(b.TempDir(), "fledge")
			paths, err := home.New(root)
			if err != nil {
				b.Fatal(err)
			}
			err = lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock()).Update(func(f *lockfile.File) error {
				for i := 0; i < n; i++ {
					name := fmt.Sprintf("fledge-plugin-p%04d", i)
					f.Put(lockfile.Plugin{
						Name: name, Source: "https://github.com/example/" + name, Version: "1.2.3",
						Installed: "2026-01-01", Commands: []string{fmt.Sprintf("p%04d", i)},
						Description: fmt.Sprintf("plugin %d", i), Kind: lockfile.KindGit,
						URL: "https://github.com/example/" + name, Commit: strings.Repeat("ab", 20),
					})
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			s := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard,
				Getenv: func(k string) string {
					if k == home.EnvHome {
						return root
					}
					return ""
				}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if code := Main([]string{"plugins", "list", "--json"}, s, "dev"); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

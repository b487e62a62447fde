package manifest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// BenchmarkParse times Parse and Decode on real manifests and on hostile
// ones, beside the way Parse used to work (decode, then decode again in
// go-toml's strict mode for the unknown-key report) on the same input.
// Compare ns/op within one run:
//
//	go test ./manifest -run '^$' -bench Parse -benchtime 20x
//
// "tables-256KiB" (30,000 unknown tables, the largest manifest MaxSize
// allows) is refused by the key bound; "old" on it takes 20-35 s per op,
// so the old way is timed on "tables-32KiB" (4,000 tables) instead, and on
// "tables-at-bound", which the bound still admits.
func BenchmarkParse(b *testing.B) {
	var corpus [][]byte
	for _, f := range corpusFiles(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		corpus = append(corpus, data)
	}
	table := func(i int) string { return fmt.Sprintf("[t%d]\n", i) }
	atBound := hostileManifest(1<<20, func(i int) string {
		if i >= MaxKeys-8 {
			return strings.Repeat("x", 1<<20)
		}
		return table(i)
	})
	inputs := []struct {
		name string
		docs [][]byte
		old  bool
	}{
		{"corpus", corpus, true},
		{"tables-at-bound", [][]byte{atBound}, true},
		{"tables-32KiB", [][]byte{hostileManifest(32<<10, table)}, true},
		{"tables-256KiB", [][]byte{hostileManifest(MaxSize, table)}, false},
	}
	old := func(data []byte) {
		var m Manifest
		if err := toml.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
		m.Unknown = strictUnknown(data)
	}
	for _, in := range inputs {
		b.Run(in.name+"/parse", func(b *testing.B) {
			for range b.N {
				for _, d := range in.docs {
					_, _ = Parse(d)
				}
			}
		})
		b.Run(in.name+"/decode", func(b *testing.B) {
			for range b.N {
				for _, d := range in.docs {
					_, _ = Decode(d)
				}
			}
		})
		if in.old {
			b.Run(in.name+"/old", func(b *testing.B) {
				for range b.N {
					for _, d := range in.docs {
						old(d)
					}
				}
			})
		}
	}
}

package termsafe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realText is text fledge really shows: every published plugin.toml
// (manifest/testdata/corpus, descriptions and hooks included) and the
// fledge-v1 protocol's messages. Seeded from these, the text fuzzers start
// from what a terminal gets rather than from a handful of escapes.
func realText(f *testing.F) []string {
	f.Helper()
	files, err := filepath.Glob("../manifest/testdata/corpus/*.toml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no manifest corpus: %v", err)
	}
	files = append(files, "../runner/testdata/fledge-v1.ndjson")
	var out []string
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, string(data))
	}
	lines, _ := os.ReadFile("../runner/testdata/fledge-v1.ndjson")
	return append(out, strings.Split(strings.TrimSpace(string(lines)), "\n")...)
}

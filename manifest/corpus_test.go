package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir holds real plugin.toml files from published plugins, copied
// from the shared corpus so the tests run from a bare checkout.
const corpusDir = "testdata/corpus"

func corpusFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Every published manifest parses, and none has an error-level problem
// except the protocol/runtime ones it really has.
func TestCorpusParses(t *testing.T) {
	files := corpusFiles(t)
	if len(files) < 66 {
		t.Fatalf("found %d corpus manifests in %s, want 66", len(files), corpusDir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(data)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if m.Plugin.Name == "" || m.Plugin.Version == "" {
			t.Errorf("%s: name %q version %q not read", filepath.Base(f), m.Plugin.Name, m.Plugin.Version)
		}
		for _, p := range m.Validate().Errors() {
			t.Errorf("%s: unexpected error %s", filepath.Base(f), p)
		}
		if testing.Verbose() {
			for _, p := range m.Validate().Warnings() {
				t.Logf("%s: warning %s", strings.TrimSuffix(filepath.Base(f), ".toml"), p)
			}
		}
	}
}

package manifest

import (
	"os"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// FuzzParse feeds Parse real manifests and their mutations: it must never
// panic, and neither may Validate on anything Parse accepts. What Parse
// accepts, go-toml can write and Parse reads back with the same problems.
func FuzzParse(f *testing.F) {
	for _, file := range corpusFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(validBase))
	f.Add([]byte(validBase + "[[commands.args]]\nname = \"a\"\ntype = \"string\"\n[plugin.commands.x]\nusage = \"u\"\n[extra]\nk = 1\n"))
	f.Add([]byte("[plugin]\nname = \"\\u202e\"\nversion = \"v1\"\nprotocol = \"fledge-v2\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		ps := m.Validate()
		_ = ps.Err()
		_ = m.CheckProtocol()
		for _, p := range ps {
			// Whatever the field (a key spelled "" is named quoted:
			// TestUnknownEmptyKeyIsNamed), the message is never empty.
			if p.Message == "" {
				t.Errorf("problem without a message: %+v", p)
			}
		}
		out, err := toml.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal of a parsed manifest: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parse of Marshal output: %v\n%s", err, out)
		}
		if len(again.Validate().Errors()) != len(ps.Errors()) {
			t.Fatalf("errors changed across Marshal: %v → %v\n%s", ps.Errors(), again.Validate().Errors(), out)
		}
	})
}

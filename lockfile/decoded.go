package lockfile

import (
	"slices"

	"github.com/corvidlabs/fledge-go/internal/derived"
)

// decodedKind names the decoded plugins.toml among derived files (v2:
// derived's value encoding, not gob).
const decodedKind = "plugins.toml decoded v2"

// LoadCached is Load through a derived file at cachePath holding the
// decoded plugins.toml (package derived: keyed on the file's exact bytes
// and the fledge binary). It is for the callers that read every entry on
// start-up, fledge mcp's catalog first: decoding 100 plugins' TOML costs
// about three times the CPU of reading them back from the derived file
// (BenchmarkParse/plugins=100 against BenchmarkLoadCached: 1.3 ms against
// 0.42 ms of CPU an operation, on the loaded 2-core machine). The decode
// is stored in derived's value encoding, which gives it back exactly and
// cost the same as gob did there (0.45 ms); gob lost the difference
// between an empty list and none, and its package initialisation cost
// every process that links it 0.1-0.2 ms, a plugin's run included (where
// go-git's config reader, which project/gitstate uses, still links it).
func (s *Store) LoadCached(cachePath string) (*File, error) {
	data, err := s.Read()
	if err != nil {
		return nil, err
	}
	dc := derived.New(cachePath, decodedKind, derived.Sum(data))
	if body, ok := dc.Read(); ok {
		var f File
		if derived.DecodeValue(body, &f) {
			for i := range f.Plugins {
				f.Plugins[i].everyone = f.Unconfined() // as Parse sets it
			}
			return &f, nil
		}
	}
	f, err := s.Decode(data)
	if err != nil {
		return nil, err
	}
	if data != nil {
		// The records' copy of the file's switch is not encoded: a
		// decode sets it again from the file's own.
		c := *f
		c.Plugins = slices.Clone(f.Plugins)
		for i := range c.Plugins {
			c.Plugins[i].everyone = ""
		}
		if body, err := derived.AppendValue(nil, &c); err == nil {
			dc.Put(body)
		}
	}
	return f, nil
}

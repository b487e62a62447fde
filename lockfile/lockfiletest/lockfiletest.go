// Package lockfiletest makes plugins.toml records for tests and benchmarks.
package lockfiletest

import (
	"fmt"
	"strings"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
)

// Entry returns the i-th of a set of distinct records shaped like the ones
// an install from GitHub writes: a pinned tag, every hash, granted and
// requested capabilities, and one command with typed arguments. Benchmarks
// of listing use it so that their files are as large as real ones.
func Entry(i int) lockfile.Plugin {
	name := fmt.Sprintf("fledge-plugin-p%04d", i)
	cmd := fmt.Sprintf("p%04d", i)
	hex := func(seed string) string { return strings.Repeat(fmt.Sprintf("%08x", i)+seed, 5)[:64] }
	caps := manifest.Capabilities{Exec: true, Store: true, Metadata: i%2 == 0}
	return lockfile.Plugin{
		Name: name, Source: "example/" + name, Version: "1.2.3",
		Installed: "2026-01-01T12:00:00Z", Commands: []string{cmd},
		PinnedRef: "v1.2.3", Capabilities: caps,
		Description: fmt.Sprintf("Plugin number %d: does one useful thing for the project", i),
		CommandDetails: []manifest.Command{{
			Name: cmd, Description: "Run the plugin's main task", Binary: "bin/" + cmd,
			Args: []manifest.Arg{
				{Name: "target", Type: "string", Required: true, Description: "What to act on"},
				{Name: "count", Type: "integer", Description: "How many times, 1 to 100 (default 1)"},
			},
		}},
		Kind: lockfile.KindGit, URL: "https://github.com/example/" + name,
		RefKind: "tag", Tag: "v1.2.3", Commit: hex("c0ffee")[:40],
		SourceHash: "fh1:" + hex("5a5a5a"), TreeHash: "fh1:" + hex("7b7b7b"),
		ManifestHash: "sha256:" + hex("9c9c9c"), Protocol: "fledge-v1",
		Requested: caps,
	}
}

// Tests for known bugs, kept out of the normal run until they are fixed.
// Run with: go test -tags pending -run Pending ./manifest

package manifest

import "testing"

// BUG: the Rust fledge's filesystem scopes are "none", "project" and
// "plugin" (validate.rs; its install prompt describes "filesystem (plugin)
// — read-only project access + read-write plugin data"). Validate warns
// that "plugin" is an unknown scope and suggests "none" or "project", so a
// manifest the Rust fledge accepts fails `fledge plugins validate --strict`.
// (It also accepts "read", "write" and "full" silently, which the Rust
// fledge rejects.)
func TestRegressionFilesystemPluginScope(t *testing.T) {
	m, err := Parse([]byte(validBase + "[capabilities]\nfilesystem = \"plugin\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Validate() {
		if p.Field == "capabilities.filesystem" {
			t.Errorf("filesystem = \"plugin\": %s", p)
		}
	}
}

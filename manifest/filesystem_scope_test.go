package manifest

import "testing"

// The Rust fledge's filesystem scopes are "none", "project" and "plugin"
// (validate.rs; its install prompt describes "filesystem (plugin) —
// read-only project access + read-write plugin data"): "plugin" is no
// problem for Validate, so a manifest the Rust fledge accepts passes
// `fledge plugins validate --strict`.
func TestFilesystemPluginScopeIsKnown(t *testing.T) {
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

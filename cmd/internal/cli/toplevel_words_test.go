package cli

import (
	"maps"
	"slices"
	"testing"
)

// TestTopLevelWords: the words that are fledge's own, not a plugin's, come
// from the command tree: every top-level command, its aliases (the Rust
// fledge's spellings), help and cobra's completion requests. A new
// top-level command joins them without a list to update.
func TestTopLevelWords(t *testing.T) {
	t.Parallel()
	root := CommandTree("test")
	got := slices.Sorted(maps.Keys(topLevelWords(root)))
	want := []string{"__complete", "__completeNoDesc", "completion", "completions", "help", "mcp", "plugin", "plugins", "version"}
	if !slices.Equal(got, want) {
		t.Errorf("top-level words %q, want %q", got, want)
	}
	for _, w := range want {
		if isPluginCommand(topLevelWords(root), w) {
			t.Errorf("%q is taken for a plugin command", w)
		}
	}
	if !isPluginCommand(topLevelWords(root), "deploy") || isPluginCommand(topLevelWords(root), "--version") {
		t.Error("a plain word must name a plugin command, a flag never")
	}
}

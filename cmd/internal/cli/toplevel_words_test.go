package cli

import (
	"io"
	"maps"
	"slices"
	"strings"
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

// TestBuiltinWordsAreTheTree: the list `fledge <command>` is told apart
// by, without building the tree, is exactly the tree's words; and
// --version, answered without the tree too (cobra's own answer goes
// through text/template: see TestFledgeKeepsDeadCodeElimination), prints
// fledge's version line wherever cobra answered it; help wins over it, and
// a flag cobra does not know is still cobra's usage error.
func TestBuiltinWordsAreTheTree(t *testing.T) {
	t.Parallel()
	got := slices.Sorted(maps.Keys(builtinWords))
	want := slices.Sorted(maps.Keys(topLevelWords(CommandTree("test"))))
	if !slices.Equal(got, want) {
		t.Errorf("builtinWords %q, but the command tree takes %q: update builtinWords", got, want)
	}
	for _, args := range [][]string{{"--version"}, {"-v"}, {"-V"}, {"--ni", "--version"}, {"--version", "--ni"}, {"-v", "plugins"}, {"--version", "x"}} {
		var out strings.Builder
		s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard, Getenv: func(string) string { return "" }}
		if code := Main(args, s, "1.2.3"); code != ExitOK || out.String() != "fledge 1.2.3\n" {
			t.Errorf("fledge %q: exit %d, printed %q", args, code, out.String())
		}
	}
	for _, args := range [][]string{{"--help", "--version"}, {"--version", "-h"}} {
		var out strings.Builder
		s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard, Getenv: func(string) string { return "" }}
		if code := Main(args, s, "1.2.3"); code != ExitOK || !strings.Contains(out.String(), "-v, --version") {
			t.Errorf("fledge %q: exit %d, printed %q; want the help, which lists -v, --version", args, code, out.String())
		}
	}
	var errOut strings.Builder
	s := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut, Getenv: func(string) string { return "" }}
	if code := Main([]string{"--version", "--bogus"}, s, "1.2.3"); code != ExitUsage || !strings.Contains(errOut.String(), "unknown flag: --bogus") {
		t.Errorf("fledge --version --bogus: exit %d, stderr %q; want cobra's usage error", code, errOut.String())
	}
}

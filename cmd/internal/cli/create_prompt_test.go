package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a terminal, create asks for the description as the Rust fledge does,
// unless --description or --yes answers it; --json never asks.
func TestCreateAsksForADescription(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	parent := t.TempDir()
	readDesc := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(parent, "fledge-plugin-"+name, "plugin.toml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "description = ") {
				return strings.TrimPrefix(line, "description = ")
			}
		}
		return ""
	}

	p := newMockPrompter(t, promptStep{kind: "input", title: "Description", answer: "  Counts the birds  "})
	if code, _, errOut := f.fledgeOnTerminal(p, "plugins", "create", "birds", "-o", parent); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := readDesc("birds"); got != `"Counts the birds"` {
		t.Errorf("description = %s", got)
	}

	// No prompt: the fake fails the test if one is asked.
	for _, args := range [][]string{{"-y"}, {"-d", "Given"}, {"--json"}} {
		name := "q" + strings.TrimLeft(args[0], "-")
		p := newMockPrompter(t)
		if code, _, errOut := f.fledgeOnTerminal(p, append([]string{"plugins", "create", name, "-o", parent}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if got := readDesc("qd"); got != `"Given"` {
		t.Errorf("-d: description = %s", got)
	}
	if got := readDesc("qy"); got != `"Says hello through the fledge-v1 protocol"` {
		t.Errorf("-y: description = %s", got)
	}
}

package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// The Rust fledge's global --ni (--non-interactive) means what
// FLEDGE_NON_INTERACTIVE=1 means: no prompt, even on a terminal, wherever
// the flag stands. fledge never takes it as consent.
func TestNonInteractiveFlagNeverPrompts(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	dir := filepath.Join(t.TempDir(), "asks")
	files := e2ePluginToml("asks", "1.0.0")
	files["plugin.toml"] = strings.Replace(files["plugin.toml"], "\n\n", "\nprotocol = \"fledge-v1\"\n\n[capabilities]\nexec = true\n\n", 1)
	newE2ERepo(t, dir).commit(t, files, "")

	for _, args := range [][]string{
		{"--ni", "plugins", "install", dir},
		{"plugins", "install", dir, "--non-interactive"},
		{"plugin", "--ni", "install", dir, "--json"},
	} {
		p := newMockPrompter(t) // any prompt fails the test
		code, out, errOut := f.fledgeOnTerminal(p, args...)
		if code != ExitFailure || !strings.Contains(errOut, "needs approval") {
			t.Errorf("%v: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
		}
		// On a terminal, the reason is the flag, not a missing terminal.
		if !strings.Contains(errOut, "--non-interactive (--ni) asks fledge not to prompt") || strings.Contains(errOut, "no terminal") {
			t.Errorf("%v: the reason names the flag\nstderr %s", args, errOut)
		}
	}

	// Without it, the terminal is asked (so the checks above can fail).
	p := newMockPrompter(t, promptStep{kind: "multiselect", title: "Grant fledge-plugin-asks", answer: []int{}})
	f.fledgeOnTerminal(p, "plugins", "install", dir)
}

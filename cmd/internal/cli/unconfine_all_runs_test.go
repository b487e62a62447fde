//go:build unix

package cli_test

import (
	"strings"
	"testing"
)

// Confinement turned off for every plugin holds for every run, not only
// the first: runs after it find their plugin through the command index,
// whose entries once lost the file-wide switch.
func TestUnconfineAllHoldsOnEveryRun(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	e.confined = true
	e.extra = []string{"UNRELATED_SETTING=1"}
	files := hPlugin("fledge-plugin-envp", "1.0.0", "")
	files["bin/envp"] = "#!/bin/sh\nenv\n"
	e.local("envp", files)
	e.ok("plugins", "install", "./envp", "--copy", "--yes", "--json")
	e.ok("plugins", "unconfine", "--all", "--json")
	for run := 1; run <= 3; run++ {
		r := e.ok("envp")
		if !strings.Contains(string(r.out), "UNRELATED_SETTING=1") || !strings.Contains(string(r.err), "runs unconfined: turned off by ") {
			t.Fatalf("run %d after unconfine --all:\n%v", run, r)
		}
	}
}

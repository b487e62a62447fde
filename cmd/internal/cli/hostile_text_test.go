//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileTOML is text carrying a colour change, an OSC 52 clipboard write,
// a cursor move, a bidi override and zero-width characters, as TOML (and
// JSON) \u escapes.
const hostileTOML = `red \u001b[31m clip \u001b]52;c;cm0gLXJmIH4=\u0007 up \u001b[2A rtl \u202e gnp.exe zw a\u200bb\u200dc \ufeff bell \u0007 csi \u009b1m`

// Hostile text from a plugin — manifest description, command description,
// hook output, file names, and (through the runner)
// log, progress, prompt and output messages — never reaches stdout or
// stderr raw.
func TestHostileTextNeverRaw(t *testing.T) {
	t.Parallel()
	e := newHEnv(t)
	manifest := `[plugin]
name = "fledge-plugin-ht"
version = "1.0.0"
description = "` + hostileTOML + `"
protocol = "fledge-v1"

[[commands]]
name = "ht"
binary = "bin/ht"
description = "` + hostileTOML + `"

[hooks]
post_install = "printf '\\033]52;c;aGk=\\007 \\342\\200\\256 \\342\\200\\213 done\\n'"
`
	script := `#!/bin/sh
IFS= read -r init
say() { printf '%s\n' "$1"; }
say '{"type":"log","level":"warn","message":"log ` + hostileTOML + `"}'
say '{"type":"progress","message":"progress ` + hostileTOML + `","current":1,"total":3}'
say '{"type":"progress","done":true}'
say '{"type":"prompt","id":"1","message":"prompt ` + hostileTOML + `","default":"d ` + hostileTOML + `"}'
IFS= read -r reply
say '{"type":"confirm","id":"2","message":"confirm ` + hostileTOML + `","default":true}'
IFS= read -r reply
say '{"type":"select","id":"3","message":"select ` + hostileTOML + `","options":["o ` + hostileTOML + `","b"],"default":0}'
IFS= read -r reply
say '{"type":"output","text":"output ` + hostileTOML + `\n"}'
`
	e.local("ht", map[string]string{"plugin.toml": manifest, "bin/ht": script})

	check := func(args ...string) hRes {
		t.Helper()
		r := e.run(args...)
		hNoRaw(t, "stdout of fledge "+strings.Join(args, " "), r.out)
		hNoRaw(t, "stderr of fledge "+strings.Join(args, " "), r.err)
		return r
	}
	r := check("plugins", "install", "./ht", "--copy", "--yes", "--grant", "hooks")
	if r.code != 0 {
		t.Fatalf("install failed\n%v", r)
	}
	if !strings.Contains(string(r.err), "done") {
		t.Errorf("the hook's output was not shown at all\n%v", r)
	}
	check("plugins", "list")
	check("plugins", "audit")
	check("plugins", "validate", "./ht")
	check("plugins", "verify")
	// A file whose name carries the same tricks, named by verify.
	hostileName := "evil\x1b]52;c;aGk=\x07\u202egnp.exe\u200b"
	if err := os.WriteFile(filepath.Join(e.fh, "plugins", "fledge-plugin-ht", hostileName), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = check("plugins", "verify")
	if r.code != 1 || !strings.Contains(string(r.out), "added") {
		t.Errorf("verify does not report the added file\n%v", r)
	}
	os.Remove(filepath.Join(e.fh, "plugins", "fledge-plugin-ht", hostileName))

	// The runner: log, progress, prompt, confirm and select text (on
	// stderr). Output text is the plugin's data: off a terminal it passes
	// verbatim (a pipe gets exactly what the plugin wrote), so stdout is
	// checked on a real terminal below.
	for _, args := range [][]string{{"ht", "--ni"}, {"plugins", "run", "ht", "--ni"}} {
		r := e.run(args...)
		hNoRaw(t, "stderr of fledge "+strings.Join(args, " "), r.err)
		if r.code != 0 || !strings.Contains(string(r.out), "output") || !strings.Contains(string(r.err), "log") {
			t.Errorf("the runner did not pass the plugin's messages on\n%v", r)
		}
	}
	check("plugins", "run", "ht", "--ni", "--json")
	for _, args := range [][]string{{"ht", "--ni"}, {"plugins", "run", "ht", "--ni"}} {
		tty, r := e.runOnTTY(args...)
		hNoRaw(t, "terminal of fledge "+strings.Join(args, " "), tty)
		hNoRaw(t, "stderr of fledge "+strings.Join(args, " "), r.err)
		if r.code != 0 || !strings.Contains(string(tty), "output red") {
			t.Errorf("on a terminal the output was not shown\n%v", r)
		}
	}

	// The remove hook's command is shown too.
	check("plugins", "remove", "ht")
}

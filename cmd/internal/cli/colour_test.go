package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
)

const colourGolden = "testdata/golden/colour.golden"

var sgrRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;]*m") })

// What fledge prints for people is painted when colour is forced
// (CLICOLOR_FORCE, or a terminal), exactly as the golden file shows: marks,
// tiers, warnings, errors. With NO_COLOR (which wins over CLICOLOR_FORCE)
// and off a terminal, it is the same text without a single escape; under
// --json nothing is painted on either stream.
func TestColour(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	writeTree(t, filepath.Join(work, "gh", "acme", "fledge-plugin-loud"), map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-loud\"\nversion = \"2.0.0\"\n\n[capabilities]\nexec = true\nstore = true\n\n[[commands]]\nname = \"loud\"\ndescription = \"Shouts\"\nbinary = \"bin/loud\"\n",
		"bin/loud":    "#!/bin/sh\n",
	})
	if _, err := initRepo(filepath.Join(work, "gh", "acme", "fledge-plugin-loud")); err != nil {
		t.Fatal(err)
	}
	// Installed by the Rust fledge from GitHub: an official plugin and one
	// of an owner config.toml trusts (their trees are not there).
	rustEntries := "[[plugins]]\nname = \"fledge-plugin-off\"\nsource = \"CorvidLabs/fledge-plugin-off\"\nversion = \"1.0.0\"\ninstalled = \"2025-01-31\"\ncommands = [\"off\"]\n\n" +
		"[[plugins]]\nname = \"fledge-plugin-mate\"\nsource = \"mates/fledge-plugin-mate\"\nversion = \"0.3.0\"\ninstalled = \"2025-01-31\"\ncommands = [\"mate\"]\n"
	writeTree(t, filepath.Join(work, "local"), map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-here\"\nversion = \"0.0.1\"\n\n[[commands]]\nname = \"here\"\nbinary = \"bin/here\"\n",
		"bin/here":    "#!/bin/sh\n",
	})

	steps := [][]string{
		{"plugins", "install", "acme/fledge-plugin-loud", "./local", "./missing", "--yes", "--grant", "exec"},
		{"plugins", "list"},
		{"plugins", "audit"},
		{"plugins", "verify"},
		{"plugins", "update"},
		{"plugins", "validate", "./local"},
		{"plugins", "remove", "nope"},
		{"help", "loud"},
	}
	transcript := func(mode string, env map[string]string) string {
		fh := filepath.Join(work, "fh-"+mode)
		if err := os.MkdirAll(fh, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fh, "config.toml"), []byte("[trust]\norgs = [\"mates\"]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fh, "plugins.toml"), []byte(rustEntries), 0o644); err != nil {
			t.Fatal(err)
		}
		env["FLEDGE_HOME"] = fh
		env["HOME"] = filepath.Join(work, "home")
		env["FLEDGE_GITHUB_URL"] = "file://" + filepath.Join(work, "gh")
		env["FLEDGE_NON_INTERACTIVE"] = "1"
		// Whether the kernel confines plugins depends on the machine.
		env["FLEDGE_CONFINE"] = "off"
		var b strings.Builder
		for _, args := range steps {
			out, errOut, code := runWithStderr(work, env, args)
			fmt.Fprintf(&b, "$ fledge %s  (exit %d)\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, out, errOut)
		}
		s := strings.ReplaceAll(b.String(), work, "$WORK")
		s = strings.ReplaceAll(s, "fh-"+mode, "fh")
		return shaRe.ReplaceAllStringFunc(regexp.MustCompile(`\b[0-9a-f]{12}\b`).ReplaceAllString(s, "<commit>"), func(string) string { return "<commit>" })
	}
	coloured := transcript("colour", map[string]string{"CLICOLOR_FORCE": "1"})
	noColor := transcript("nocolor", map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"})
	plain := transcript("plain", map[string]string{})

	shown := strings.ReplaceAll(coloured, "\x1b", "<ESC>")
	if *update {
		if err := os.WriteFile(colourGolden, []byte(shown), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(colourGolden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != shown {
		t.Errorf("coloured output differs from %s (refresh with -update if intended); got:\n%s", colourGolden, shown)
	}
	for _, paint := range []string{"<ESC>[32m✓<ESC>[m", "<ESC>[31m✗<ESC>[m", "<ESC>[1;31merror:<ESC>[m", "<ESC>[36mhint:<ESC>[m",
		"<ESC>[33munverified<ESC>[m", "<ESC>[32mofficial<ESC>[m", "<ESC>[36mteam<ESC>[m", "<ESC>[2mlocal<ESC>[m", "<ESC>[33m!<ESC>[m"} {
		if !strings.Contains(shown, paint) {
			t.Errorf("nothing painted as %q", paint)
		}
	}
	if strings.Contains(noColor, "\x1b") || strings.Contains(plain, "\x1b") {
		t.Errorf("escape sequences with NO_COLOR or off a terminal:\n%s\n%s", noColor, plain)
	}
	if stripped := sgrRe().ReplaceAllString(coloured, ""); stripped != noColor || noColor != plain {
		t.Errorf("colour changed more than colour:\n--- forced, stripped\n%s\n--- NO_COLOR\n%s\n--- plain\n%s", stripped, noColor, plain)
	}

	// --json: nothing painted on stdout or stderr, colour forced or not.
	env := map[string]string{"CLICOLOR_FORCE": "1", "FLEDGE_HOME": filepath.Join(work, "fh-json"), "FLEDGE_GITHUB_URL": "file://" + filepath.Join(work, "gh")}
	for _, args := range [][]string{
		{"plugins", "install", "./missing", "./local", "--yes", "--json"},
		{"plugins", "install", "./missing", "--json"},
		{"plugins", "remove", "nope", "--json"},
		{"plugins", "--json", "list"},
		{"plugins", "audit", "--json"},
	} {
		out, errOut, _ := runWithStderr(work, env, args)
		if bytes.Contains(out, []byte("\x1b")) || bytes.Contains(errOut, []byte("\x1b")) {
			t.Errorf("fledge %s painted: %q %q", strings.Join(args, " "), out, errOut)
		}
	}
}

// The colour decision, stream by stream (no-color.org, bixense.com/clicolors).
func TestColourDecision(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env   map[string]string
		tty   bool
		plain bool
		want  bool
	}{
		{tty: true, want: true},
		{tty: false, want: false},
		{env: map[string]string{"NO_COLOR": "1"}, tty: true, want: false},
		{env: map[string]string{"NO_COLOR": "0"}, tty: true, want: false}, // any value
		{env: map[string]string{"CLICOLOR_FORCE": "1"}, want: true},
		{env: map[string]string{"CLICOLOR_FORCE": "0"}, want: false},
		{env: map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, want: false},
		{env: map[string]string{"CLICOLOR": "0"}, tty: true, want: false},
		{env: map[string]string{"TERM": "dumb"}, tty: true, want: false},
		{env: map[string]string{"CLICOLOR_FORCE": "1"}, plain: true, want: false},
		{tty: true, plain: true, want: false},
	} {
		s := &cli.IOStreams{OutTTY: c.tty, ErrTTY: c.tty, Plain: c.plain, Getenv: func(k string) string { return c.env[k] }}
		if s.ColorEnabled() != c.want || s.ErrColorEnabled() != c.want {
			t.Errorf("env %v, terminal %v, plain %v: colour %v/%v, want %v", c.env, c.tty, c.plain, s.ColorEnabled(), s.ErrColorEnabled(), c.want)
		}
	}
}

// runWithStderr runs fledge in process (relative sources resolved against
// dir) and returns stdout, stderr and the exit code.
func runWithStderr(dir string, env map[string]string, args []string) ([]byte, []byte, int) {
	var stdout, stderr bytes.Buffer
	s := &cli.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr, Getenv: func(k string) string { return env[k] }}
	abs := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, "./") {
			a = filepath.Join(dir, a)
		}
		abs[i] = a
	}
	code := cli.Main(abs, s, "test")
	return stdout.Bytes(), stderr.Bytes(), code
}

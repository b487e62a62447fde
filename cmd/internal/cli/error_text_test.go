package cli_test

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// rawErrorText is what Go, the OS and go-git say that a person cannot act
// on: system calls, Go's own wording, HTTP requests, fledge's staging
// directories.
var rawErrorText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\blstat |\bstat /|\bopen /|context canceled|\.staging|dial tcp|info/refs|\?service=|(^|[\s"])toml: |exit status|Get "|list refs of|\bclone file:`)
})

// The common failures, through the CLI, in text and in --json: each says
// what is wrong in the user's terms, and none shows raw Go or OS error text
// or a path inside fledge's staging area.
func TestErrorTextIsForPeople(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	plugin := func(name, extra string) map[string]string {
		return map[string]string{
			"plugin.toml": "[plugin]\nname = \"" + name + "\"\nversion = \"0.1.0\"\n\n[[commands]]\nname = \"" + strings.TrimPrefix(name, "fledge-plugin-") + "\"\nbinary = \"bin/x\"\n" + extra,
			"bin/x":       "#!/bin/sh\n",
		}
	}
	repo := func(path string, files map[string]string, symlinks map[string]string) {
		dir := filepath.Join(work, "gh", path)
		writeTree(t, dir, files)
		for name, target := range symlinks {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := initRepo(dir); err != nil {
			t.Fatal(err)
		}
	}
	repo("o/fledge-plugin-empty", map[string]string{"README": "not a plugin\n"}, nil)
	repo("o/fledge-plugin-escape", plugin("fledge-plugin-escape", ""), map[string]string{"bin/y": "/etc/passwd"})
	repo("o/fledge-plugin-badbuild", plugin("fledge-plugin-badbuild", "\n[hooks]\nbuild = \"echo building in $PWD; ls \\\"$PWD/nope\\\"; exit 3\"\n"), nil)
	repo("o/fledge-plugin-badtoml", map[string]string{"plugin.toml": "[plugin\nname = 1\n"}, nil)
	writeTree(t, filepath.Join(work, "emptydir"), map[string]string{"README": "x"})
	writeTree(t, filepath.Join(work, "afile"), nil)
	os.WriteFile(filepath.Join(work, "afile"), []byte("x"), 0o644)

	env := map[string]string{
		"FLEDGE_HOME":         filepath.Join(work, "fh"),
		"HOME":                filepath.Join(work, "home"),
		"FLEDGE_GITHUB_URL":   "file://" + filepath.Join(work, "gh"),
		"PATH":                os.Getenv("PATH"),
		"FLEDGE_GITHUB_API":   "http://" + closed,
		"FLEDGE_REGISTRY_URL": "http://" + closed + "/index.json",
	}
	for _, c := range []struct {
		args []string
		want string // in the message
	}{
		{[]string{"plugins", "install", "./missing"}, "missing: no such directory"},
		{[]string{"plugins", "install", "./afile"}, "afile: not a directory"},
		{[]string{"plugins", "install", "./emptydir"}, "no plugin.toml"},
		{[]string{"plugins", "install", "o/fledge-plugin-empty"}, "o/fledge-plugin-empty has no plugin.toml at its root"},
		{[]string{"plugins", "install", "o/fledge-plugin-escape", "--yes"}, "symlink bin/y points outside the plugin"},
		{[]string{"plugins", "install", "o/fledge-plugin-badbuild", "--yes", "--grant", "hooks"}, "exited with status 3"},
		{[]string{"plugins", "install", "o/fledge-plugin-badtoml"}, "plugin.toml: line 1"},
		{[]string{"plugins", "install", "o/fledge-plugin-nope"}, "no repository at file://"},
		{[]string{"plugins", "install", "o/fledge-plugin-empty@v9"}, `"v9" is not a tag, branch or commit`},
		{[]string{"plugins", "install", "http://" + closed + "/o/fledge-plugin-x"}, "cannot connect to " + closed + ": connection refused"},
		{[]string{"plugins", "install", "./missing", "o/fledge-plugin-nope"}, "no such directory"},
		{[]string{"plugins", "sync", "--file", "./missing.toml"}, "missing.toml: no such file"},
		{[]string{"plugins", "remove", "nope"}, `plugin "nope": not installed`},
		{[]string{"plugins", "search", "x"}, "registry unavailable: http://" + closed + "/index.json: cannot connect to " + closed + ": connection refused"},
		{[]string{"plugins", "install", "somename"}, "cannot connect to " + closed + ": connection refused"},
		{[]string{"plugins", "validate", "./missing"}, "missing is not a directory"},
		{[]string{"nope-command"}, `unknown command "nope-command"`},
	} {
		for _, asJSON := range []bool{false, true} {
			args := c.args
			if asJSON && c.args[0] == "plugins" {
				args = append(append([]string{}, c.args...), "--json")
			}
			out, errOut, code := runWithStderr(work, env, args)
			all := string(out) + string(errOut)
			// A build's own output streams as it was printed (it names
			// where the build ran); the error that sums it up must not.
			shown := regexp.MustCompile(`(?m)^  │ .*$`).ReplaceAllString(all, "")
			if code == 0 {
				t.Errorf("fledge %s succeeded:\n%s", strings.Join(args, " "), all)
				continue
			}
			if !strings.Contains(all, c.want) {
				t.Errorf("fledge %s does not say %q:\n%s", strings.Join(args, " "), c.want, all)
			}
			if m := rawErrorText().FindString(shown); m != "" {
				t.Errorf("fledge %s shows raw text %q:\n%s", strings.Join(args, " "), m, all)
			}
			usageInJSON := asJSON && code == 2 // the message says the fix; no "Run --help" under --json
			if !strings.Contains(all, "hint") && !strings.Contains(all, "Run 'fledge") && !usageInJSON {
				t.Errorf("fledge %s gives no hint:\n%s", strings.Join(args, " "), all)
			}
		}
	}
}

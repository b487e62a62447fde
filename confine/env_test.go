package confine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Environment keeps the base table's entries that are no secrets and what
// is granted (names and prefixes), whatever its value; it withholds the
// rest, by name, and says which base entries were secrets.
func TestEnvironment(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/h", "LANG=C", "LC_ALL=C.UTF-8", "TERM=xterm", "FLEDGE_PLUGIN_DIR=/p",
		"FLEDGE_GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "HTTPS_PROXY=http://u:pw@proxy:3128",
		"HTTP_PROXY=http://proxy:3128", "GOCACHE=/c", "npm_config_cache=/n", "npm_config__authToken=x",
		"GITHUB_TOKEN=t", "AWS_REGION=eu", "AWS_SECRET_ACCESS_KEY=s", "EDITOR=vi", "SSH_AUTH_SOCK=/s",
		"UNRELATED=1", "PATH=/bin", // later entries win
		"no-equals", "=x",
	}
	env, withheld, secret := Environment(environ, []string{"GITHUB_TOKEN", "AWS_*"})
	want := []string{"HOME=/h", "LANG=C", "LC_ALL=C.UTF-8", "TERM=xterm", "FLEDGE_PLUGIN_DIR=/p", "HTTP_PROXY=http://proxy:3128",
		"GOCACHE=/c", "npm_config_cache=/n", "GITHUB_TOKEN=t", "AWS_REGION=eu", "AWS_SECRET_ACCESS_KEY=s", "EDITOR=vi", "PATH=/bin"}
	if !slices.Equal(env, want) {
		t.Errorf("env = %q\nwant  %q", env, want)
	}
	if want := []string{"FLEDGE_GITHUB_TOKEN", "HTTPS_PROXY", "SSH_AUTH_SOCK", "UNRELATED", "npm_config__authToken"}; !slices.Equal(withheld, want) {
		t.Errorf("withheld = %q, want %q", withheld, want)
	}
	if want := []string{"FLEDGE_GITHUB_TOKEN", "HTTPS_PROXY", "npm_config__authToken"}; !slices.Equal(secret, want) {
		t.Errorf("secret = %q, want %q", secret, want)
	}
	for _, row := range BaseEnv {
		if row.Why == "" || len(row.Names) == 0 {
			t.Errorf("a base row without names or reason: %+v", row)
		}
		for _, n := range row.Names {
			if strings.ContainsAny(strings.TrimSuffix(n, "*"), "*=") {
				t.Errorf("base name %q", n)
			}
		}
	}
}

// The base table's index finds, for every name, the row a search of the
// table in order finds first: each name and prefix it holds, names a
// prefix covers, names in no row, and corpus names.
func TestBaseRowAsTheTable(t *testing.T) {
	names := []string{"", "*", "CARGO_", "CARGO", "LC_", "LC_ALL", "FLEDGE_X", "npm_config_x", "NPM_CONFIG_Y", "UNRELATED", "PATHX", "XPATH"}
	for _, row := range BaseEnv {
		for _, n := range row.Names {
			names = append(names, n, strings.TrimSuffix(n, "*")+"X", strings.TrimSuffix(n, "*")[1:])
		}
	}
	for _, c := range loadEnvCorpus(t) {
		name, _, _ := strings.Cut(c.kv, "=")
		names = append(names, name)
	}
	for _, name := range names {
		want, wantOK := EnvRow{}, false
		for _, row := range BaseEnv {
			if MatchAny(row.Names, name) {
				want, wantOK = row, true
				break
			}
		}
		got, ok := baseRow(name)
		if ok != wantOK || got.Why != want.Why || got.Values != want.Values {
			t.Errorf("baseRow(%q) = %q, %v; the table says %q, %v", name, got.Why, ok, want.Why, wantOK)
		}
	}
}

// NamedIn finds whole names in a program, within its first MaxNamedScan
// bytes, and nothing in a file it cannot read.
func TestNamedIn(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "run")
	body := "#!/bin/sh\ncurl -H \"X: $FIGMA_TOKEN\" \"${DATABASE_URL:-x}\"\necho $MY_TOKEN_FILE\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	got := NamedIn(script, []string{"FIGMA_TOKEN", "DATABASE_URL", "MY_TOKEN", "TOKEN", "ABSENT"})
	if want := []string{"FIGMA_TOKEN", "DATABASE_URL"}; !slices.Equal(got, want) {
		t.Errorf("NamedIn = %q, want %q", got, want)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, append([]byte(strings.Repeat("x", MaxNamedScan)), []byte(" LATE_NAME ")...), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := NamedIn(big, []string{"LATE_NAME"}); len(got) != 0 {
		t.Errorf("a name past the bound was found: %q", got)
	}
	elf := filepath.Join(dir, "elf")
	if err := os.WriteFile(elf, []byte("\x7fELF\x02\x01\x01\x00 FIGMA_TOKEN "), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := NamedIn(elf, []string{"FIGMA_TOKEN"}); got != nil {
		t.Errorf("a compiled program names %q", got)
	}
	if got := NamedIn(filepath.Join(dir, "missing"), []string{"X"}); got != nil {
		t.Errorf("a missing file names %q", got)
	}
}

package cli_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const jsonGolden = "testdata/golden/json_fields.golden"

// TestJSONFieldSets pins the --json documents of install, list, audit,
// remove and validate (and the shape of a failure) against a golden file:
// first the exact set of field paths, then the values, normalised (commits,
// hashes, timestamps and temporary paths replaced). Scripts depend on these
// documents; change them on purpose and refresh with -update.
func TestJSONFieldSets(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	env := map[string]string{
		"FLEDGE_HOME":            filepath.Join(work, "fh"),
		"HOME":                   filepath.Join(work, "home"),
		"NO_COLOR":               "1",
		"FLEDGE_GITHUB_URL":      "file://" + filepath.Join(work, "gh"),
		"FLEDGE_GITHUB_API":      "http://127.0.0.1:1",
		"FLEDGE_REGISTRY_URL":    "http://127.0.0.1:1/index.json",
		"FLEDGE_NON_INTERACTIVE": "1",
	}
	manifest := func(name, extra string) string {
		return fmt.Sprintf("[plugin]\nname = %q\nversion = \"1.0.0\"\ndescription = \"golden fixture\"\nprotocol = \"fledge-v1\"\n\n"+
			"[[commands]]\nname = %q\ndescription = \"does the thing\"\nbinary = \"bin/run\"\n"+
			"args = [{ name = \"target\", type = \"string\", required = true, description = \"what to do it to\" }]\n\n%s",
			name, strings.TrimPrefix(name, "fledge-plugin-"), extra)
	}
	writeTree(t, filepath.Join(work, "gh", "acme", "fledge-plugin-gold"), map[string]string{
		"plugin.toml": manifest("fledge-plugin-gold", "[hooks]\npost_remove = \"true\"\n\n[capabilities]\nexec = true\nstore = true\nmetadata = true\n"),
		"bin/run":     "#!/bin/sh\n",
	})
	if _, err := initRepo(filepath.Join(work, "gh", "acme", "fledge-plugin-gold")); err != nil {
		t.Fatal(err)
	}
	writeTree(t, filepath.Join(work, "local"), map[string]string{
		"plugin.toml": manifest("fledge-plugin-local", "[capabilities]\nstore = true\n\n[unknown_table]\nx = 1\n"),
		"bin/run":     "#!/bin/sh\n",
	})

	writeTree(t, filepath.Join(work, "bad"), map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-bad\"\nversion = \"one\"\ncolour = \"blue\"\n",
	})

	type step struct {
		name string
		args []string
		code int
	}
	steps := []step{
		{"install", []string{"plugins", "install", "acme/fledge-plugin-gold", "--grant", "exec,store,hooks", "--json"}, 0},
		{"install_local", []string{"plugins", "install", "./local", "--copy", "--yes", "--json"}, 0},
		{"install_failed", []string{"plugins", "install", "./local", "--yes", "--json"}, 1},
		{"list", []string{"plugins", "list", "--json"}, 0},
		{"audit", []string{"plugins", "audit", "--json"}, 0},
		{"validate", []string{"plugins", "validate", "./local", "--json"}, 0},
		{"remove", []string{"plugins", "remove", "gold", "--json"}, 0},
		{"error", []string{"plugins", "remove", "gold", "--json"}, 1},
		{"usage_error", []string{"plugins", "install", "--json"}, 2},
		{"validate_invalid", []string{"plugins", "validate", "./bad", "--strict", "--json"}, 1},
	}
	got := map[string]any{}
	for _, s := range steps {
		out, code := runInProcess(t, work, env, s.args)
		if code != s.code {
			t.Fatalf("fledge %s: exit %d, want %d\n%s", strings.Join(s.args, " "), code, s.code, out)
		}
		var doc any
		if err := json.Unmarshal(normaliseJSON(out, work), &doc); err != nil {
			t.Fatalf("fledge %s: stdout is not one JSON document: %v\n%s", strings.Join(s.args, " "), err, out)
		}
		got[s.name] = doc
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	gotText := buf.Bytes()
	if *update {
		if err := os.MkdirAll(filepath.Dir(jsonGolden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(jsonGolden, gotText, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	wantText, err := os.ReadFile(jsonGolden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var want map[string]any
	if err := json.Unmarshal(wantText, &want); err != nil {
		t.Fatalf("%s: %v", jsonGolden, err)
	}
	for _, s := range steps {
		gp, wp := fieldPaths(got[s.name], ""), fieldPaths(want[s.name], "")
		if added, missing := diffSets(gp, wp); len(added)+len(missing) > 0 {
			t.Errorf("%s --json field set changed (refresh with -update if intended):\n  added:   %s\n  missing: %s",
				s.name, strings.Join(added, ", "), strings.Join(missing, ", "))
		}
	}
	if !bytes.Equal(gotText, wantText) {
		t.Errorf("--json documents differ from %s (refresh with -update if intended); got:\n%s", jsonGolden, gotText)
	}
}

// runInProcess runs cli.Main with captured streams, in dir, with env.
func runInProcess(t *testing.T, dir string, env map[string]string, args []string) ([]byte, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	s := &cli.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr,
		Getenv: func(k string) string { return env[k] }}
	// Relative sources resolve against the process's directory; resolve
	// them here so the test needs no chdir (and can run in parallel).
	abs := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, "./") {
			a = filepath.Join(dir, a)
		}
		abs[i] = a
	}
	code := cli.Main(abs, s, "test")
	if bytes.Contains(stdout.Bytes(), []byte("\x1b")) {
		t.Errorf("fledge %s: ANSI escape in --json output", strings.Join(args, " "))
	}
	return stdout.Bytes(), code
}

var (
	shaRe  = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	hashRe = regexp.MustCompile(`\b(fh1|sha256):[0-9a-f]{64}\b`)
	timeRe = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	dateRe = regexp.MustCompile(`"\d{4}-\d\d-\d\d"`)
)

// normaliseJSON replaces what differs between runs.
func normaliseJSON(b []byte, work string) []byte {
	s := strings.ReplaceAll(string(b), work, "$WORK")
	s = shaRe.ReplaceAllString(s, "<sha>")
	s = hashRe.ReplaceAllString(s, "<$1 hash>")
	s = timeRe.ReplaceAllString(s, "<time>")
	s = dateRe.ReplaceAllString(s, `"<date>"`)
	return []byte(s)
}

// fieldPaths lists every object field path in v (array elements as []).
func fieldPaths(v any, prefix string) map[string]bool {
	out := map[string]bool{}
	switch x := v.(type) {
	case map[string]any:
		for k, el := range x {
			p := prefix + "." + k
			out[p] = true
			for q := range fieldPaths(el, p) {
				out[q] = true
			}
		}
	case []any:
		for _, el := range x {
			for q := range fieldPaths(el, prefix+"[]") {
				out[q] = true
			}
		}
	}
	return out
}

func diffSets(got, want map[string]bool) (added, missing []string) {
	for k := range got {
		if !want[k] {
			added = append(added, k)
		}
	}
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(added)
	sort.Strings(missing)
	return added, missing
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

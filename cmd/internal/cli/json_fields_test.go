package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/publish/publishtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const jsonGolden = "testdata/golden/json_fields.golden"

// TestJSONFieldSets pins the --json document of every command (and the
// shape of a failure; TestJSONStepsCoverEveryCommand holds it to every
// command with a --json flag) against a golden file: first the exact set of field
// paths, then the values, normalised (commits, hashes, times, dates and
// temporary paths replaced). Scripts depend on these documents; change them
// on purpose and refresh with -update. Its rust_1.7.2 subtests check each
// document against the Rust fledge's, written from Rust's source (see
// rust_json_test.go).
func TestJSONFieldSets(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	api := publishtest.New(t)
	ghAPI := fakeGitHubSearch(t)
	env := map[string]string{
		"FLEDGE_HOME":            filepath.Join(work, "fh"),
		"HOME":                   filepath.Join(work, "home"),
		"NO_COLOR":               "1",
		"FLEDGE_GITHUB_URL":      "file://" + filepath.Join(work, "gh"),
		"FLEDGE_GITHUB_API":      "http://127.0.0.1:1",
		"FLEDGE_REGISTRY_URL":    "http://127.0.0.1:1/index.json",
		"FLEDGE_NON_INTERACTIVE": "1",
		// Whether the kernel confines plugins depends on the machine.
		"FLEDGE_CONFINE": "off",
	}
	manifest := func(name, extra string) string {
		return fmt.Sprintf("[plugin]\nname = %q\nversion = \"1.0.0\"\ndescription = \"golden fixture\"\nprotocol = \"fledge-v1\"\n\n"+
			"[[commands]]\nname = %q\ndescription = \"does the thing\"\nbinary = \"bin/run\"\n"+
			"args = [{ name = \"target\", type = \"string\", required = true, description = \"what to do it to\" }]\n\n%s",
			name, strings.TrimPrefix(name, "fledge-plugin-"), extra)
	}
	// plain is a plugin without the protocol, as most of the Rust era's.
	plain := func(name, version string) map[string]string {
		return map[string]string{
			"plugin.toml": fmt.Sprintf("[plugin]\nname = %q\nversion = %q\n\n[[commands]]\nname = %q\nbinary = \"bin/run\"\n",
				name, version, strings.TrimPrefix(name, "fledge-plugin-")),
			"bin/run": "#!/bin/sh\n",
		}
	}
	repo := func(path string, files map[string]string, tag string) {
		t.Helper()
		dir := filepath.Join(work, "gh", path)
		writeTree(t, dir, files)
		r, err := git.PlainOpen(dir)
		if errors.Is(err, git.ErrRepositoryNotExists) {
			_, err = initRepo(dir)
			r, _ = git.PlainOpen(dir)
		} else if err == nil {
			_, err = commitAll(r, "next")
		}
		if err != nil {
			t.Fatal(err)
		}
		if tag != "" {
			h, err := r.Head()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.CreateTag(tag, h.Hash(), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	repo("acme/fledge-plugin-gold", map[string]string{
		"plugin.toml": manifest("fledge-plugin-gold", "[hooks]\npost_remove = \"true\"\n\n[capabilities]\nexec = true\nstore = true\nmetadata = true\n"),
		"bin/run":     "#!/bin/sh\n",
	}, "")
	repo("acme/fledge-plugin-plain", plain("fledge-plugin-plain", "1.0.0"), "v1.0.0")
	for _, d := range []struct{ name, tag string }{{"github", "v0.4.0"}, {"deps", "v0.2.0"}, {"metrics", "v0.2.1"}} {
		repo("CorvidLabs/fledge-plugin-"+d.name, plain("fledge-plugin-"+d.name, strings.TrimPrefix(d.tag, "v")), d.tag)
	}
	writeTree(t, filepath.Join(work, "local"), map[string]string{
		"plugin.toml": manifest("fledge-plugin-local", "[capabilities]\nstore = true\n\n[unknown_table]\nx = 1\n"),
		"bin/run":     "#!/bin/sh\n",
	})
	writeTree(t, filepath.Join(work, "bad"), map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-bad\"\nversion = \"one\"\ncolour = \"blue\"\n",
	})
	writeTree(t, filepath.Join(work, "index"), map[string]string{"index.json": `[
  {"name": "fledge-plugin-gold", "slug": "gold", "version": "1.0.0", "description": "golden fixture", "language": "sh",
   "trust_tier": "official", "repo": "https://github.com/acme/fledge-plugin-gold", "topics": ["fledge-plugin"], "stars": 3,
   "updated_at": "2026-05-01T10:00:00Z", "default_branch": "main"},
  {"name": "fledge-plugin-bare", "repo": "https://gitlab.com/bob/fledge-plugin-bare.git"}
]`})
	withEnv := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	otherHome := withEnv("FLEDGE_HOME", filepath.Join(work, "fh2"))
	writeTree(t, work, map[string]string{"policy.toml": `[sources]
allow = ["github.com/acme/*", "file:///srv/plugins/*"]
deny = ["github.com/evil/*"]
[capabilities]
unverified = ["exec", "store"]
team = ["exec", "store", "metadata"]
[hooks]
unverified = false
[tools]
deny = ["*.wipe-everything"]
[pins]
require = "tag"
min_tag_age = "72h"
[trust]
owners = ["acme"]
`})

	type step struct {
		name   string
		args   []string
		code   int
		env    map[string]string // overrides
		before func()
	}
	steps := []step{
		{name: "install", args: []string{"plugins", "install", "acme/fledge-plugin-gold", "--grant", "exec,store,hooks", "--json"}},
		{name: "install_local", args: []string{"plugins", "install", "./local", "--copy", "--yes", "--json"}},
		{name: "install_failed", args: []string{"plugins", "install", "./local", "--yes", "--json"}, code: 1},
		{name: "install_plain", args: []string{"plugins", "install", "acme/fledge-plugin-plain@v1.0.0", "--yes", "--json"}},
		{name: "install_defaults", args: []string{"plugins", "install", "--defaults", "--yes", "--json"}, env: otherHome},
		{name: "list", args: []string{"plugins", "list", "--json"}},
		{name: "audit", args: []string{"plugins", "audit", "--json"}},
		{name: "info", args: []string{"plugins", "info", "gold", "--json"}},
		{name: "grant", args: []string{"plugins", "grant", "gold", "metadata", "--json"}},
		{name: "revoke", args: []string{"plugins", "revoke", "gold", "metadata", "--json"}},
		{name: "tools", args: []string{"plugins", "tools", "--json"}},
		{name: "verify", args: []string{"plugins", "verify", "--json"}},
		{name: "bundle", args: []string{"plugins", "bundle", "plain", "--out", filepath.Join(work, "bundle"), "--json"}},
		// No registry listens on port 1: the document of a failed push.
		{name: "mirror_failed", args: []string{"plugins", "mirror", "plain", "--to", "oci://127.0.0.1:1/team", "--json"}, code: 1},
		{name: "run", args: []string{"plugins", "run", "plain", "--json"}},
		{name: "run_failed", args: []string{"plugins", "run", "nosuch", "--json"}, code: 2},
		{name: "sync", args: []string{"plugins", "sync", "--file", filepath.Join(work, "fh", "plugins.toml"), "--grant", "exec,store,hooks", "--json"},
			code: 1, env: withEnv("FLEDGE_HOME", filepath.Join(work, "fh3"))}, // the local plugin cannot be reproduced
		{name: "audit_log", args: []string{"plugins", "audit", "--log", "--json"}},
		{name: "audit_events", args: []string{"plugins", "audit", "--events", "--json"}},
		{name: "audit_verify_log", args: []string{"plugins", "audit", "--verify-log", "--json"}},
		{name: "policy", args: []string{"plugins", "policy", "--json"}, env: withEnv("FLEDGE_POLICY", filepath.Join(work, "policy.toml"))},
		{name: "policy_denied", args: []string{"plugins", "grant", "gold", "metadata", "--json"}, code: 1,
			env: withEnv("FLEDGE_POLICY", filepath.Join(work, "policy.toml"))},
		{name: "update", args: []string{"plugins", "update", "--json"}, before: func() {
			repo("acme/fledge-plugin-plain", plain("fledge-plugin-plain", "1.1.0"), "v1.1.0")
			repo("acme/fledge-plugin-gold", map[string]string{"NEWS": "more\n"}, "")
		}},
		{name: "update_defaults", args: []string{"plugins", "update", "--defaults", "--json"}, env: otherHome, before: func() {
			repo("CorvidLabs/fledge-plugin-github", plain("fledge-plugin-github", "0.5.0"), "v0.5.0")
		}},
		{name: "validate", args: []string{"plugins", "validate", "./local", "--json"}},
		{name: "validate_invalid", args: []string{"plugins", "validate", "./bad", "--strict", "--json"}, code: 1},
		{name: "create", args: []string{"plugins", "create", "made", "-o", "./created", "-d", "Made for the golden file", "--json"}},
		{name: "search", args: []string{"plugins", "search", "--json"},
			env: withEnv("FLEDGE_REGISTRY_URL", "file://"+filepath.Join(work, "index", "index.json"), "FLEDGE_GITHUB_URL", "https://github.com")},
		{name: "search_github", args: []string{"plugins", "search", "--json"}, env: withEnv("FLEDGE_REGISTRY_URL", "", "FLEDGE_GITHUB_API", ghAPI)},
		{name: "recommend", args: []string{"plugins", "recommend", "--json"}},
		{name: "publish", args: []string{"plugins", "publish", "./created/fledge-plugin-made", "--json"},
			env: withEnv("FLEDGE_GITHUB_API", api.URL, "GITHUB_TOKEN", "ghp_GOLDEN", "GIT_AUTHOR_NAME", "G", "GIT_AUTHOR_EMAIL", "g@example.com")},
		{name: "unconfine", args: []string{"plugins", "unconfine", "gold", "--json"}},
		{name: "confine", args: []string{"plugins", "confine", "gold", "--json"}},
		{name: "disable", args: []string{"plugins", "disable", "plain", "--json"}},
		{name: "run_disabled", args: []string{"plugins", "run", "plain", "--json"}, code: 1},
		{name: "enable", args: []string{"plugins", "enable", "plain", "--json"}},
		{name: "remove", args: []string{"plugins", "remove", "gold", "--json"}},
		{name: "error", args: []string{"plugins", "remove", "gold", "--json"}, code: 1},
		{name: "usage_error", args: []string{"plugins", "install", "--json"}, code: 2},
	}
	for _, path := range jsonCommands(cli.CommandTree("test")) {
		if !slices.ContainsFunc(steps, func(s step) bool { return strings.HasPrefix(strings.Join(s.args, " ")+" ", path+" ") }) {
			t.Errorf("fledge %s prints JSON, but no step here runs it: add one", path)
		}
	}
	got := map[string]any{}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		stepEnv := maps.Clone(env)
		maps.Copy(stepEnv, s.env)
		out, code := runInProcess(t, work, stepEnv, s.args)
		if code != s.code {
			t.Fatalf("fledge %s: exit %d, want %d\n%s", strings.Join(s.args, " "), code, s.code, out)
		}
		var doc any
		if err := json.Unmarshal(normaliseJSON(out, work, api.Dir), &doc); err != nil {
			t.Fatalf("fledge %s: stdout is not one JSON document: %v\n%s", strings.Join(s.args, " "), err, out)
		}
		got[s.name] = doc
	}
	t.Run("rust_1.7.2", func(t *testing.T) { checkRustDocuments(t, got) })

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

// jsonCommands lists the path (without "fledge") of every command in the
// tree that takes --json, its own or inherited.
func jsonCommands(c *cobra.Command) []string {
	var out []string
	for _, sub := range c.Commands() {
		if sub.Hidden || sub.Name() == "help" {
			continue
		}
		if sub.Flags().Lookup("json") != nil || sub.InheritedFlags().Lookup("json") != nil {
			if !sub.HasSubCommands() {
				out = append(out, strings.TrimPrefix(sub.CommandPath(), c.Root().Name()+" "))
			}
		}
		out = append(out, jsonCommands(sub)...)
	}
	return out
}

// fakeGitHubSearch serves GitHub's repository search on loopback with one
// repository, and returns its base URL.
func fakeGitHubSearch(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"total_count":1,"incomplete_results":false,"items":[{"name":"fledge-plugin-tz",
			"full_name":"someone/fledge-plugin-tz","owner":{"login":"someone"},"description":null,
			"html_url":"https://github.com/someone/fledge-plugin-tz","stargazers_count":4,"language":"Go",
			"topics":["fledge-plugin","time"],"pushed_at":"2026-05-05T14:04:36Z","default_branch":"main"}]}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
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
	code := cli.MainWithSystemPolicy(abs, s, "test", "")
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
	userRe = regexp.MustCompile(`"user": "[^"]*",\s*"uid": -?\d+`)
	// offRe is the user who turned confinement off for a plugin.
	offRe = regexp.MustCompile(`"[^"]* for this plugin at `)
	// disRe is the user who disabled a plugin.
	disRe = regexp.MustCompile(`[^"( ]* at <time> \(fledge plugins disable\)`)
	// durRe is how long an event's run took.
	durRe = regexp.MustCompile(`"duration_ms": \d+`)
)

// normaliseJSON replaces what differs between runs: the work directory
// (and others, each by its own name) and what time and content decide.
func normaliseJSON(b []byte, work string, others ...string) []byte {
	s := strings.ReplaceAll(string(b), work, "$WORK")
	for i, o := range others {
		s = strings.ReplaceAll(s, o, fmt.Sprintf("$TMP%d", i+1))
	}
	s = shaRe.ReplaceAllString(s, "<sha>")
	s = hashRe.ReplaceAllString(s, "<$1 hash>")
	s = timeRe.ReplaceAllString(s, "<time>")
	s = dateRe.ReplaceAllString(s, `"<date>"`)
	s = userRe.ReplaceAllString(s, `"user": "<user>", "uid": "<uid>"`)
	s = offRe.ReplaceAllString(s, `"<user> for this plugin at `)
	s = durRe.ReplaceAllString(s, `"duration_ms": "<ms>"`)
	s = disRe.ReplaceAllString(s, `<user> at <time> (fledge plugins disable)`)
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

// writeTree writes files (slash-separated paths) under dir, each
// executable.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		testutil.WriteFile(t, filepath.Join(dir, filepath.FromSlash(p)), []byte(body), 0o755)
	}
}

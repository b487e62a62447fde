package cli

// In-process end-to-end tests that need what the testscript sandbox does
// not give: a loopback HTTP index (ETag revalidation, the cache answering
// when the server is gone) and the host's Go build cache (create --lang go
// builds the example). Each runs fledge through run() against a
// FLEDGE_HOME of its own; hooks see the real process environment.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// e2eFixture runs fledge commands in-process with a controlled environment.
type e2eFixture struct {
	t   *testing.T
	env map[string]string
}

func newE2EFixture(t *testing.T) *e2eFixture {
	t.Helper()
	dir := t.TempDir()
	return &e2eFixture{t: t, env: map[string]string{
		"FLEDGE_HOME": filepath.Join(dir, "fh"), "NO_COLOR": "1",
		// Nothing may reach the network unless a test points it somewhere.
		"FLEDGE_GITHUB_API": "http://127.0.0.1:1", "FLEDGE_REGISTRY_URL": "http://127.0.0.1:1/index.json",
		"FLEDGE_GITHUB_URL": "file://" + filepath.ToSlash(filepath.Join(dir, "gh")),
	}}
}

func (f *e2eFixture) fledge(args ...string) (code int, stdout, stderr string) {
	f.t.Helper()
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Getenv: func(k string) string { return f.env[k] }}
	code = run(context.Background(), NewFactory(s, "test"), args)
	return code, out.String(), errOut.String()
}

// mustJSON decodes stdout into v, failing the test with the output.
func (f *e2eFixture) mustJSON(out string, v any) {
	f.t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		f.t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
}

// e2eRepo is a git repository built with go-git.
type e2eRepo struct {
	dir  string
	repo *git.Repository
	n    int
}

func newE2ERepo(t *testing.T, dir string) *e2eRepo {
	t.Helper()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		t.Fatal(err)
	}
	return &e2eRepo{dir: dir, repo: r}
}

// commit writes files (path → content), commits everything and tags the
// commit when tag is set.
func (g *e2eRepo) commit(t *testing.T, files map[string]string, tag string) string {
	t.Helper()
	for p, data := range files {
		path := filepath.Join(g.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(p, "bin/") {
			mode = 0o755
		}
		if err := os.WriteFile(path, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	wt, err := g.repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	g.n++
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Date(2026, 1, 1, 0, g.n, 0, 0, time.UTC)}
	h, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	if tag != "" {
		if _, err := g.repo.CreateTag(tag, h, nil); err != nil {
			t.Fatal(err)
		}
	}
	return h.String()
}

func e2ePluginToml(name, version string) map[string]string {
	return map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-" + name + "\"\nversion = \"" + version + "\"\n\n[[commands]]\nname = \"" + name + "\"\nbinary = \"bin/" + name + "\"\n",
		"bin/" + name: "#!/bin/sh\necho " + name + " " + version + "\n",
	}
}

// revalidatingIndex serves an index with an ETag and Last-Modified,
// answers conditional requests with 304, and records what it was asked.
type revalidatingIndex struct {
	mu       sync.Mutex
	body     string
	requests []http.Header
	statuses []int
	srv      *httptest.Server
}

func newRevalidatingIndex(t *testing.T, body string) *revalidatingIndex {
	t.Helper()
	x := &revalidatingIndex{body: body}
	x.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.mu.Lock()
		defer x.mu.Unlock()
		x.requests = append(x.requests, r.Header.Clone())
		w.Header().Set("ETag", `"idx-1"`)
		w.Header().Set("Last-Modified", "Thu, 01 Jan 2026 00:00:00 GMT")
		if r.Header.Get("If-None-Match") == `"idx-1"` {
			x.statuses = append(x.statuses, http.StatusNotModified)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		x.statuses = append(x.statuses, http.StatusOK)
		_, _ = w.Write([]byte(x.body))
	}))
	t.Cleanup(x.srv.Close)
	return x
}

func (x *revalidatingIndex) seen() ([]http.Header, []int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]http.Header(nil), x.requests...), append([]int(nil), x.statuses...)
}

type e2eInstallDoc struct {
	Installed []struct {
		Name      string `json:"name"`
		Source    string `json:"source"`
		Commit    string `json:"commit"`
		PinnedRef string `json:"pinned_ref"`
		RefKind   string `json:"ref_kind"`
		TrustTier string `json:"trust_tier"`
	} `json:"installed"`
	Error *jsonError `json:"error"`
}

// Installing by name through a loopback HTTP index: the index is fetched
// once per run, revalidated with ETag on the next run (304, served from
// the cache), and when the server is gone the cache still answers, saying
// so. Updating a plugin installed by name needs no registry at all.
func TestRegistryInstallHTTPIndex(t *testing.T) {
	t.Parallel()
	f := newE2EFixture(t)
	gh := strings.TrimPrefix(f.env["FLEDGE_GITHUB_URL"], "file://")
	wx := newE2ERepo(t, filepath.Join(gh, "acme", "fledge-plugin-wx"))
	c100 := wx.commit(t, e2ePluginToml("wx", "1.0.0"), "v1.0.0")
	c110 := wx.commit(t, e2ePluginToml("wx", "1.1.0"), "v1.1.0")
	c200 := wx.commit(t, e2ePluginToml("wx", "2.0.0"), "v2.0.0")
	notes := newE2ERepo(t, filepath.Join(gh, "bob", "fledge-plugin-notes"))
	notes.commit(t, e2ePluginToml("notes", "0.1.0"), "")

	index, err := json.Marshal([]map[string]any{
		{"name": "fledge-plugin-wx", "slug": "wx", "description": "Weather", "repo": "file://" + filepath.ToSlash(wx.dir)},
		{"name": "fledge-plugin-notes", "description": "Notes", "repo": f.env["FLEDGE_GITHUB_URL"] + "/bob/fledge-plugin-notes"},
	})
	if err != nil {
		t.Fatal(err)
	}
	x := newRevalidatingIndex(t, string(index))
	f.env["FLEDGE_REGISTRY_URL"] = x.srv.URL + "/index.json"

	// Two names in one run: one request.
	code, out, errOut := f.fledge("plugins", "install", "wx", "notes", "--json")
	if code != ExitOK {
		t.Fatalf("install wx notes: exit %d\n%s\n%s", code, out, errOut)
	}
	var doc e2eInstallDoc
	f.mustJSON(out, &doc)
	if len(doc.Installed) != 2 || doc.Installed[0].Name != "fledge-plugin-wx" || doc.Installed[0].Commit != c200 ||
		doc.Installed[0].TrustTier != "unverified" || doc.Installed[1].Name != "fledge-plugin-notes" || doc.Installed[1].Source != "bob/fledge-plugin-notes" {
		t.Errorf("installed %+v", doc.Installed)
	}
	reqs, statuses := x.seen()
	if len(reqs) != 1 || statuses[0] != http.StatusOK || reqs[0].Get("If-None-Match") != "" {
		t.Fatalf("first run: %d requests %v, headers %v", len(reqs), statuses, reqs)
	}
	if strings.Contains(errOut, "note:") {
		t.Errorf("fresh index reported as stale: %q", errOut)
	}

	// The next run revalidates: If-None-Match, 304, answered from the cache.
	code, out, errOut = f.fledge("plugins", "install", "wx@^1.0", "--force", "--json")
	if code != ExitOK {
		t.Fatalf("install wx@^1.0: exit %d\n%s\n%s", code, out, errOut)
	}
	doc = e2eInstallDoc{}
	f.mustJSON(out, &doc)
	if len(doc.Installed) != 1 || doc.Installed[0].Commit != c110 || doc.Installed[0].PinnedRef != "^1.0" || doc.Installed[0].RefKind != "constraint" {
		t.Errorf("installed %+v", doc.Installed)
	}
	reqs, statuses = x.seen()
	if len(reqs) != 2 || statuses[1] != http.StatusNotModified || reqs[1].Get("If-None-Match") != `"idx-1"` {
		t.Fatalf("second run: %d requests %v, If-None-Match %q", len(reqs), statuses, reqs[len(reqs)-1].Get("If-None-Match"))
	}
	if strings.Contains(errOut, "note:") {
		t.Errorf("a 304 reported as stale: %q", errOut)
	}

	// The server goes away: the cache answers, and says it is a cached copy.
	x.srv.Close()
	code, out, errOut = f.fledge("plugins", "install", "wx@~1.0.0", "--force", "--json")
	if code != ExitOK {
		t.Fatalf("install with the index down: exit %d\n%s\n%s", code, out, errOut)
	}
	doc = e2eInstallDoc{}
	f.mustJSON(out, &doc)
	if len(doc.Installed) != 1 || doc.Installed[0].Commit != c100 {
		t.Errorf("installed %+v", doc.Installed)
	}
	if !strings.Contains(errOut, "note: could not refresh the registry index") || !strings.Contains(errOut, "cached copy") {
		t.Errorf("stderr does not say the cache answered: %q", errOut)
	}

	// Unknown names are still told apart from an unreachable index.
	code, out, _ = f.fledge("plugins", "install", "nosuch", "--json")
	if code != ExitFailure {
		t.Errorf("unknown name: exit %d", code)
	}
	doc = e2eInstallDoc{}
	f.mustJSON(out, &doc)
	if doc.Error == nil || doc.Error.Code != CodeNotFound {
		t.Errorf("unknown name with a cached index: %+v", doc.Error)
	}

	// Update needs no registry: the record holds the URL.
	c101 := wx.commit(t, e2ePluginToml("wx", "1.0.1"), "v1.0.1")
	code, out, errOut = f.fledge("plugins", "update", "wx", "--json")
	if code != ExitOK {
		t.Fatalf("update: exit %d\n%s\n%s", code, out, errOut)
	}
	var up updateDoc
	f.mustJSON(out, &up)
	if len(up.Results) != 1 || up.Results[0].Status != "updated" || up.Results[0].To == nil || up.Results[0].To.Commit != c101 || up.Results[0].From.Commit != c100 {
		t.Errorf("update results %+v", up.Results)
	}
}

// create --lang go writes a plugin whose build hook compiles it: it
// validates strictly, installs from its directory (local: --yes approves
// the build) and greets.
func TestCreateGoPluginBuildsAndRuns(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go tool is needed to build the Go example: %v", err)
	}
	t.Parallel()
	f := newE2EFixture(t)
	dir := filepath.Join(t.TempDir(), "fledge-plugin-greet")

	code, out, errOut := f.fledge("plugins", "create", "greet", "--lang", "go", "--dir", dir)
	if code != ExitOK {
		t.Fatalf("create: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, p := range []string{"plugin.toml", "main.go", "go.mod", "README.md", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("create wrote no %s: %v", p, err)
		}
	}

	// Valid as written; its one warning (as in the Rust fledge) is the
	// binary its build makes.
	code, out, errOut = f.fledge("plugins", "validate", dir, "--json")
	var v struct {
		Valid    bool     `json:"valid"`
		Errors   []any    `json:"errors"`
		Warnings []string `json:"warnings"`
	}
	f.mustJSON(out, &v)
	if code != ExitOK || !v.Valid || len(v.Errors) != 0 || len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], "does not exist yet") {
		t.Fatalf("validate: exit %d\n%s\n%s", code, out, errOut)
	}

	code, out, errOut = f.fledge("plugins", "install", dir, "--yes", "--json")
	if code != ExitOK {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "go build -o bin/greet .") {
		t.Errorf("the build command was not shown: %q", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "greet")); err != nil {
		t.Errorf("the build made no binary: %v", err)
	}

	code, out, errOut = f.fledge("greet", "Ada")
	if code != ExitOK || out != "Hello, Ada!\n" {
		t.Errorf("fledge greet Ada: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = f.fledge("greet")
	if code != ExitOK || out != "Hello, world!\n" {
		t.Errorf("fledge greet: exit %d, stdout %q", code, out)
	}

	// A second create into the same directory is refused and changes nothing.
	before, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := f.fledge("plugins", "create", "greet", "--lang", "go", "--dir", dir); code == ExitOK || !strings.Contains(errOut, "not empty") {
		t.Errorf("create over a plugin: exit %d, stderr %q", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "main.go")); !bytes.Equal(before, after) {
		t.Errorf("create over a plugin rewrote main.go")
	}
}

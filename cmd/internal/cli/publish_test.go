package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/publish/publishtest"
)

const publishToken = "ghp_CLIPUBLISHSECRET42"

func newPublishFixture(t *testing.T) (*e2eFixture, *publishtest.API, string) {
	t.Helper()
	f := newE2EFixture(t)
	api := publishtest.New(t)
	f.env["FLEDGE_GITHUB_API"] = api.URL
	f.env["GITHUB_TOKEN"] = publishToken
	f.env["GIT_AUTHOR_NAME"], f.env["GIT_AUTHOR_EMAIL"] = "Pub", "pub@example.com"
	// The release tag is made by the git binary: with no configuration of
	// the user's, so it is unsigned here.
	f.env["GIT_CONFIG_GLOBAL"], f.env["GIT_CONFIG_NOSYSTEM"] = os.DevNull, "1"
	f.env["GIT_COMMITTER_NAME"], f.env["GIT_COMMITTER_EMAIL"] = "Pub", "pub@example.com"
	dir := filepath.Join(t.TempDir(), "fledge-plugin-pub")
	files := e2ePluginToml("pub", "0.3.0")
	files["plugin.toml"] = strings.Replace(files["plugin.toml"], "version", "description = \"Publishes things\"\nversion", 1)
	for p, body := range files {
		testutil.WriteFile(t, filepath.Join(dir, p), []byte(body), 0o755)
	}
	return f, api, dir
}

// noToken fails the test if the token shows anywhere a user or a log
// could see it.
func noToken(t *testing.T, where string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, publishToken) {
			t.Errorf("the token is printed in %s:\n%s", where, s)
		}
	}
}

func TestPublishJSON(t *testing.T) {
	t.Parallel()
	f, api, dir := newPublishFixture(t)
	code, out, errOut := f.fledge("plugin", "publish", dir, "--json")
	noToken(t, "publish's output", out, errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var doc map[string]any
	f.mustJSON(out, &doc)
	// The Rust fledge's document (src/publish.rs, build_publish_envelope).
	want := map[string]any{
		"schema_version": float64(1), "action": "publish", "cancelled": false, "topic": "fledge-plugin",
		"install_hint": "fledge plugins install octo/fledge-plugin-pub",
	}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("%s = %v, want %v", k, doc[k], v)
		}
	}
	repo, _ := doc["repo"].(map[string]any)
	if repo["owner"] != "octo" || repo["name"] != "fledge-plugin-pub" || repo["url"] != "https://github.example/octo/fledge-plugin-pub" ||
		repo["created"] != true || repo["private"] != false {
		t.Errorf("repo = %v", repo)
	}
	plugin, _ := doc["plugin"].(map[string]any)
	if plugin["name"] != "fledge-plugin-pub" || plugin["version"] != "0.3.0" || plugin["description"] != "Publishes things" {
		t.Errorf("plugin = %v", plugin)
	}
	rp := api.Repo("octo", "fledge-plugin-pub")
	if rp == nil || publishtest.Head(t, rp.Bare) != doc["commit"] || doc["branch"] != "main" {
		t.Fatalf("not pushed: %v", doc)
	}
	for _, a := range api.Auth() {
		if a != "Bearer "+publishToken {
			t.Errorf("Authorization = %q", a)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	noToken(t, ".git/config", string(cfg))

	// The repository exists now: without --yes and a terminal, publish
	// asks for consent it cannot get, and changes nothing.
	before := publishtest.Head(t, rp.Bare)
	if err := os.WriteFile(filepath.Join(dir, "NEWS"), []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = f.fledge("plugins", "publish", dir, "--json")
	noToken(t, "publish's output", out, errOut)
	e := jsonErrorOf(t, out)
	if code != ExitFailure || e.Code != CodeApprovalRequired {
		t.Errorf("no consent: exit %d error %+v", code, e)
	}
	if publishtest.Head(t, rp.Bare) != before {
		t.Error("pushed without consent")
	}
	// The hint is the command that pushes it, and works as printed.
	hint, ok := strings.CutPrefix(e.Hint, "to push an update to it: fledge ")
	if !ok || strings.ContainsAny(hint, `'"`) {
		t.Fatalf("hint %q is not a plain fledge command", e.Hint)
	}
	if code, _, errOut = f.fledge(strings.Fields(hint)...); code != 0 || publishtest.Head(t, rp.Bare) == before {
		t.Fatalf("the hint %q: exit %d, pushed %v\n%s", hint, code, publishtest.Head(t, rp.Bare) != before, errOut)
	}
	before = publishtest.Head(t, rp.Bare)
	if err := os.WriteFile(filepath.Join(dir, "NEWS"), []byte("v3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = f.fledge("plugins", "publish", dir, "-y", "--json", "--description", "Better")
	f.mustJSON(out, &doc)
	if code != 0 || doc["repo"].(map[string]any)["created"] != false || doc["committed"] != true || doc["description_updated"] != true {
		t.Fatalf("update: exit %d %v", code, doc)
	}
	if publishtest.Head(t, rp.Bare) == before || rp.Description != "Better" {
		t.Error("the update was not pushed")
	}
}

func TestPublishDeclinedOnATerminal(t *testing.T) {
	t.Parallel()
	f, api, dir := newPublishFixture(t)
	rp := api.AddRepo("acme", "fledge-plugin-pub", &publishtest.Repo{})
	p := newMockPrompter(t, promptStep{kind: "confirm", title: "Repository acme/fledge-plugin-pub already exists", answer: false})
	code, out, errOut := f.fledgeOnTerminal(p, "plugins", "publish", dir, "--org", "acme", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Cancelled bool `json:"cancelled"`
		Repo      struct {
			Owner   string `json:"owner"`
			Created bool   `json:"created"`
		} `json:"repo"`
	}
	f.mustJSON(out, &doc)
	if !doc.Cancelled || doc.Repo.Owner != "acme" || doc.Repo.Created || publishtest.Head(t, rp.Bare) != "" {
		t.Errorf("declined: %+v, remote head %q", doc, publishtest.Head(t, rp.Bare))
	}
	if c := api.Calls(); c != "GET /repos/acme/fledge-plugin-pub" {
		t.Errorf("calls after declining: %s", c)
	}
}

func TestPublishRefusals(t *testing.T) {
	t.Parallel()
	f, api, dir := newPublishFixture(t)

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "plugin.toml"), []byte("[plugin]\nname = \"fledge-plugin-bad\"\nversion = \"one\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := f.fledge("plugins", "publish", bad, "--json")
	if e := jsonErrorOf(t, out); code != ExitFailure || e.Code != CodeInvalidManifest || !strings.Contains(e.Message, "plugin.version") {
		t.Errorf("invalid plugin: exit %d %+v", code, e)
	}
	if c := api.Calls(); c != "" {
		t.Errorf("an invalid plugin reached GitHub: %s", c)
	}

	delete(f.env, "GITHUB_TOKEN")
	code, out, _ = f.fledge("plugins", "publish", dir, "--json")
	if e := jsonErrorOf(t, out); code != ExitFailure || e.Code != CodePublishFailed || !strings.Contains(e.Hint, "GITHUB_TOKEN") {
		t.Errorf("no token: exit %d %+v", code, e)
	}
	f.env["GH_TOKEN"] = publishToken

	api.Override = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusForbidden)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": "Resource not accessible by integration"})
			return true
		}
		return false
	}
	code, out, errOut := f.fledge("plugins", "publish", dir, "--json")
	noToken(t, "a failed publish", out, errOut)
	if e := jsonErrorOf(t, out); code != ExitFailure || e.Code != CodePublishFailed || !strings.Contains(e.Message, "HTTP 403") || !strings.Contains(e.Hint, "repo scope") {
		t.Errorf("403: exit %d %+v", code, e)
	}
	code, _, errOut = f.fledge("plugins", "publish", dir, "extra")
	if code != ExitUsage || !strings.Contains(errOut, "at most one directory") {
		t.Errorf("two dirs: exit %d %s", code, errOut)
	}
}

// --description becomes the repository's description on GitHub: one line
// that a terminal shows as it is, whatever hides in it.
func TestPublishRefusesAnUnshowableDescription(t *testing.T) {
	t.Parallel()
	f, api, dir := newPublishFixture(t)
	for _, desc := range []string{"two\nlines", "right\u202eleft", "c1\u009bcontrol"} {
		code, out, errOut := f.fledge("plugins", "publish", dir, "-y", "--description", desc)
		if code != 2 || !strings.Contains(errOut, "--description must be one line of plain text") {
			t.Errorf("--description %q: exit %d\n%s%s", desc, code, out, errOut)
		}
	}
	if calls := api.Calls(); len(calls) != 0 {
		t.Errorf("publish reached the API with a refused description: %v", calls)
	}
}

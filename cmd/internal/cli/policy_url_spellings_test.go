package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A deny rule on a repository refuses every spelling of it with the
// policy's error before anything is fetched, at install, sync and update:
// the loopback server the rule names receives no request. Spellings the URL parser refuses (a
// percent-encoded separator, a numeric host other than the dotted quad)
// are refused as sources, before the policy and before any request too.
func TestPolicyDeniesEverySpellingBeforeFetching(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		reqs []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reqs = append(reqs, r.Method+" "+r.RequestURI)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	hostPort := srv.Listener.Addr().String() // 127.0.0.1:PORT
	port := hostPort[strings.LastIndexByte(hostPort, ':')+1:]

	f := newE2EFixture(t)
	pol := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(pol, []byte(fmt.Sprintf("[sources]\ndeny = [%q]\n", hostPort+"/evil/*")), 0o644); err != nil {
		t.Fatal(err)
	}
	f.env["FLEDGE_POLICY"] = pol

	base := "http://" + hostPort
	denied := []string{
		base + "/evil//fledge-plugin-x",
		base + "/evil/fledge-plugin-x",
		base + "/evil/./fledge-plugin-x",
		base + "/evil/x/../fledge-plugin-x",
		base + "//evil/fledge-plugin-x/",
		base + "/evil/fledge-plugin-x.git",
		base + "/evil/fledge-plugin-x.git/",
		base + "/evil/fledge-plugin-x/.git",
		base + "/%65vil/fledge-plugin-x",
		"HTTP://" + hostPort + "/evil/fledge-plugin-x",
		"http://127.0.0.1:0" + port + "/evil/fledge-plugin-x",
		"http://user:secret@" + hostPort + "/evil/fledge-plugin-x",
		"http://[::ffff:127.0.0.1]:" + port + "/evil/fledge-plugin-x",
		base + "/evil/fledge-plugin-x@v1.0.0",
	}
	for _, sp := range denied {
		code, out, errOut := f.fledge("plugins", "install", "--json", "--grant", "store", sp)
		if code != ExitFailure || !strings.Contains(out, `"code": "policy_denied"`) {
			t.Errorf("install %s: exit %d, stdout %s, stderr %s; want exit %d and policy_denied", sp, code, out, errOut, ExitFailure)
		}
		if !strings.Contains(errOut, fmt.Sprintf("denies %q", hostPort+"/evil/*")) {
			t.Errorf("install %s: stderr does not name the rule: %s", sp, errOut)
		}
	}
	refused := map[string]string{
		base + "/evil%2Ffledge-plugin-x":        "%2F",
		base + "/evil%2ffledge-plugin-x":        "%2f",
		base + "/evil%5Cfledge-plugin-x":        "%5C",
		base + "/x/%2E%2E/evil/fledge-plugin-x": "%2E",
		"http://127.1:" + port + "/evil/x":      "canonical IPv4",
		"http://2130706433:" + port + "/evil/x": "canonical IPv4",
		"http://0x7f.0.0.1:" + port + "/evil/x": "canonical IPv4",
		base + "/evil/fledge-plugin-x?x=1":      "query",
		base + "/../evil/fledge-plugin-x":       "above the root",
		base + "/evil/fledge-plugin-x#frag":     "fragment",
		"http://a@b@" + hostPort + "/evil/x":    "more than one '@'",
		"http://127.0.0.1:99999/evil/x":         "port",
		base + "/.git":                          "names no repository",
	}
	for sp, why := range refused {
		code, out, errOut := f.fledge("plugins", "install", "--json", "--grant", "store", sp)
		if code != ExitFailure || strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, `"code"`) {
			t.Errorf("install %s: exit %d, stdout %s; want a source error", sp, code, out)
		}
		if !strings.Contains(errOut, why) {
			t.Errorf("install %s: stderr does not say %q: %s", sp, why, errOut)
		}
	}

	// sync and update check the same identity before fetching: a shared
	// plugins.toml naming a spelling of the denied repository, and an
	// installed record of one.
	entry := func(name, u string) string {
		return fmt.Sprintf("[[plugins]]\nname = %q\nsource = %q\nurl = %q\nversion = \"1.0.0\"\ninstalled = \"2026-01-01T00:00:00Z\"\ncommands = []\npinned_ref = \"main\"\nref_kind = \"branch\"\nkind = \"git\"\ncommit = %q\n\n",
			name, u, u, strings.Repeat("a", 40))
	}
	file := "format_version = 1\n\n" + entry("fledge-plugin-x", base+"/evil//fledge-plugin-x") +
		entry("fledge-plugin-y", "HTTP://"+hostPort+"/evil/./z/../fledge-plugin-y.git/")
	team := filepath.Join(t.TempDir(), "team.toml")
	if err := os.WriteFile(team, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := f.fledge("plugins", "sync", "--file", team, "--grant", "store", "--json")
	if code != ExitFailure || !bothDenied(t, out) {
		t.Errorf("sync: exit %d, stdout %s, stderr %s; want both entries policy_denied", code, out, errOut)
	}
	if err := os.MkdirAll(f.env["FLEDGE_HOME"], 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.env["FLEDGE_HOME"], "plugins.toml"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = f.fledge("plugins", "update", "--json")
	if code != ExitFailure || !bothDenied(t, out) {
		t.Errorf("update: exit %d, stdout %s, stderr %s; want both plugins policy_denied", code, out, errOut)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(reqs) > 0 {
		t.Errorf("the denied server received %d requests: %q", len(reqs), reqs)
	}
}

// bothDenied reports whether a sync or update --json result refused
// fledge-plugin-x and fledge-plugin-y with policy_denied.
func bothDenied(t *testing.T, out string) bool {
	t.Helper()
	var doc struct {
		Results []struct {
			Name  string `json:"name"`
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Errorf("stdout is not JSON: %v", err)
		return false
	}
	denied := map[string]bool{}
	for _, r := range doc.Results {
		denied[r.Name] = r.Error.Code == "policy_denied"
	}
	return len(doc.Results) == 2 && denied["fledge-plugin-x"] && denied["fledge-plugin-y"]
}

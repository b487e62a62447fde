package cli

import (
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
// policy's error before anything is fetched: the loopback server the rule
// names receives no request. Spellings the URL parser refuses (a
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
	mu.Lock()
	defer mu.Unlock()
	if len(reqs) > 0 {
		t.Errorf("the denied server received %d requests: %q", len(reqs), reqs)
	}
}

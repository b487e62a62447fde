package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// gitServer serves the repositories under root over git's smart HTTP
// protocol (git http-backend) on loopback, and counts what it is asked:
// ref listings (GET .../info/refs, or protocol v2's ls-refs) and fetches
// (POST .../git-upload-pack).
type gitServer struct {
	srv          *httptest.Server
	mu           sync.Mutex
	refs, fetch  int
	otherRequest []string
}

func newGitServer(t *testing.T, root string) *gitServer {
	t.Helper()
	exe, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	backend := &cgi.Handler{Path: filepath.Join(strings.TrimSpace(string(exe)), "git-http-backend"),
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	g := &gitServer{}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		switch {
		case strings.HasSuffix(r.URL.Path, "/info/refs"):
			g.refs++
		case strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
			// Protocol v2 lists refs by POST too (command=ls-refs).
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte("command=ls-refs")) {
				g.refs++
			} else {
				g.fetch++
			}
		default:
			g.otherRequest = append(g.otherRequest, r.Method+" "+r.URL.Path)
		}
		g.mu.Unlock()
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

// counts returns and resets what was asked.
func (g *gitServer) counts() (refs, fetch int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	refs, fetch = g.refs, g.fetch
	g.refs, g.fetch = 0, 0
	return refs, fetch
}

// A source rule pinned to a commit lets only that commit of that
// repository in: another repository gets no request at all, another
// commit of it is refused once its ref is listed and before anything is
// fetched (install, update, sync), and a record whose commit the rule no
// longer names does not run.
func TestPolicyPinnedCommitBeforeFetchAndAtRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	repo := newE2ERepo(t, filepath.Join(root, "acme", "fledge-plugin-x"))
	commitA := repo.commit(t, e2ePluginToml("x", "1.0.0"), "v1.0.0")
	git := newGitServer(t, root)
	host := git.srv.Listener.Addr().String()
	url := "http://" + host + "/acme/fledge-plugin-x"

	f := newE2EFixture(t)
	pol := filepath.Join(t.TempDir(), "policy.toml")
	pin := func(commit string) {
		t.Helper()
		if err := os.WriteFile(pol, []byte(fmt.Sprintf("[sources]\nallow = [%q]\n", host+"/acme/fledge-plugin-x@"+commit)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pin(commitA)
	f.env["FLEDGE_POLICY"] = pol

	// Another repository on the same server: refused by name, no request.
	code, out, _ := f.fledge("plugins", "install", "--json", "--yes", "http://"+host+"/acme/fledge-plugin-y")
	if refs, fetch := git.counts(); code != ExitFailure || !strings.Contains(out, `"policy_denied"`) || refs+fetch != 0 {
		t.Fatalf("another repository: exit %d, %d ref listings and %d fetches (want policy_denied and none)\n%s", code, refs, fetch, out)
	}

	if code, out, errOut := f.fledge("plugins", "install", "--yes", url); code != 0 {
		t.Fatalf("install of the pinned commit: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, fetch := git.counts(); fetch == 0 {
		t.Fatal("the pinned commit was installed without a fetch the server saw: the counter is not counting")
	}
	if code, out, errOut := f.fledge("x"); code != 0 || !strings.Contains(out, "x 1.0.0") {
		t.Fatalf("run at the pinned commit: exit %d\n%s\n%s", code, out, errOut)
	}

	// A newer commit on the branch: listed, refused, not fetched.
	commitB := repo.commit(t, e2ePluginToml("x", "1.1.0"), "v1.1.0")
	code, out, errOut := f.fledge("plugins", "update", "x", "--json")
	refs, fetch := git.counts()
	if code != ExitFailure || !strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, "at commit "+commitB) || fetch != 0 || refs == 0 {
		t.Fatalf("update to an unpinned commit: exit %d, %d ref listings, %d fetches (want policy_denied naming %s, no fetch)\n%s\n%s", code, refs, fetch, commitB, out, errOut)
	}
	code, out, _ = f.fledge("plugins", "install", "--json", "--yes", "--force", url+"@v1.1.0")
	if _, fetch := git.counts(); code != ExitFailure || !strings.Contains(out, `"policy_denied"`) || fetch != 0 {
		t.Fatalf("install of an unpinned tag: exit %d, %d fetches (want policy_denied, no fetch)\n%s", code, fetch, out)
	}

	// The administrator moves the pin: the installed commit no longer
	// runs, and a sync of it from elsewhere is refused before any request.
	pin(commitB)
	code, out, errOut = f.fledge("plugins", "run", "x", "--json")
	if code == 0 || !strings.Contains(out, `"policy_denied"`) || !strings.Contains(out, "at commit "+commitA) {
		t.Fatalf("run after the pin moved: exit %d\n%s\n%s", code, out, errOut)
	}
	other := newE2EFixture(t)
	other.env["FLEDGE_POLICY"] = pol
	code, out, _ = other.fledge("plugins", "sync", "--file", filepath.Join(f.env["FLEDGE_HOME"], "plugins.toml"), "--yes", "--json")
	if refs, fetch := git.counts(); code == 0 || !strings.Contains(out, `policy_denied`) || refs+fetch != 0 {
		t.Fatalf("sync of the old commit: exit %d, %d ref listings, %d fetches (want policy_denied and none)\n%s", code, refs, fetch, out)
	}
	if len(git.otherRequest) > 0 {
		t.Errorf("unexpected requests: %v", git.otherRequest)
	}
}

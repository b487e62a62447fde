package repourl

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests hold the parser to git's own reading: real `git ls-remote`
// runs against a loopback server that records what it is asked for, and
// against real repositories on disk.

func requireGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed: .ci/run installs it, and these tests need it")
		}
		t.Skip("git is not installed")
	}
}

// gitRun runs git with a home of its own and no system config, bounded so
// a stuck git fails the test instead of hanging it.
func gitRun(t *testing.T, home string, args ...string) (string, error) {
	t.Helper()
	const bound = 30 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_PROTOCOL_FROM_USER=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("git %s did not finish within %s: %s", strings.Join(args, " "), bound, out)
	}
	return string(out), err
}

// serverPath is how a repository server reads a request path: percent
// escapes decoded, empty segments and a trailing slash ignored, ".git"
// optional. Dot segments are not resolved: git (curl) must have done
// that, and one arriving is a difference the test reports.
func serverPath(p string) string {
	p = strings.TrimSuffix(p, "/info/refs")
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	if n := len(segs); n > 0 {
		segs[n-1] = strings.TrimSuffix(segs[n-1], ".git")
	}
	return strings.Join(segs, "/")
}

// Every http spelling the parser accepts makes git ask the server for the
// repository path the parser names; the server named is the one in the
// identity.
func TestGitReadsHTTPSpellingsAsParsed(t *testing.T) {
	t.Parallel()
	requireGit(t)
	type request struct{ host, uri string }
	var (
		mu   sync.Mutex
		reqs []request
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reqs = append(reqs, request{r.Host, r.RequestURI})
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	hp := srv.Listener.Addr().String()
	port := hp[strings.LastIndexByte(hp, ':')+1:]
	base := "http://" + hp
	home := t.TempDir()

	spellings := []string{
		base + "/evil/fledge-plugin-x",
		base + "/evil//fledge-plugin-x",
		base + "//evil/fledge-plugin-x/",
		base + "/evil/./fledge-plugin-x",
		base + "/evil/x/../fledge-plugin-x",
		base + "/evil/x/y/../../fledge-plugin-x/.",
		base + "/evil/fledge-plugin-x.git",
		base + "/evil/fledge-plugin-x.git/",
		base + "/%65vil/fledge%2Dplugin-x",
		"http://user:secret@" + hp + "/evil/fledge-plugin-x",
		"http://127.0.0.1:0" + port + "/evil/fledge-plugin-x",
		"http://[::ffff:127.0.0.1]:" + port + "/evil/fledge-plugin-x",
		base + "/Evil/Fledge-Plugin-X",
		// Refused by the parser; git is still run, to show what it does.
		base + "/evil%2Ffledge-plugin-x",
		base + "/x/%2E%2E/evil/fledge-plugin-x",
		"http://127.1:" + port + "/evil/fledge-plugin-x",
		base + "/../evil/fledge-plugin-x",
	}
	for _, sp := range spellings {
		mu.Lock()
		reqs = nil
		mu.Unlock()
		out, err := gitRun(t, home, "ls-remote", sp)
		if err == nil {
			t.Errorf("git ls-remote %s succeeded against a server that has nothing: %s", sp, out)
		}
		mu.Lock()
		got := append([]request(nil), reqs...)
		mu.Unlock()
		r, perr := Parse(sp)
		if perr != nil {
			if len(got) > 0 {
				t.Logf("refused %s (%v); git asked for %s", sp, perr, got[0].uri)
			}
			continue
		}
		if len(got) == 0 {
			// git refused the spelling itself: nothing was fetched.
			t.Logf("git made no request for %s: %s", sp, strings.TrimSpace(out))
			continue
		}
		for _, q := range got {
			p, _, _ := strings.Cut(q.uri, "?")
			if read := serverPath(p); read != r.Path {
				t.Errorf("%s: the parser names %q, git asked for %q, which a server reads as %q", sp, r.ID(), q.uri, read)
			}
			h, err := Parse("http://" + q.host + "/x")
			if err != nil || h.Host != r.Host || h.EffectivePort() != r.EffectivePort() {
				t.Errorf("%s: the parser names host %s:%s, git sent Host %q", sp, r.Host, r.EffectivePort(), q.host)
			}
		}
	}
}

// Every file:// spelling the parser maps to one repository is the
// repository git lists; a spelling naming another repository is another
// identity.
func TestGitReadsFileSpellingsAsParsed(t *testing.T) {
	t.Parallel()
	requireGit(t)
	home := t.TempDir()
	work := t.TempDir()
	mk := func(dir string) string {
		if out, err := gitRun(t, home, "init", "-q", "-b", "main", dir); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
		if out, err := gitRun(t, home, "-C", dir, "commit", "-q", "--allow-empty", "-m", dir); err != nil {
			t.Fatalf("git commit: %v: %s", err, out)
		}
		out, err := gitRun(t, home, "-C", dir, "rev-parse", "HEAD")
		if err != nil {
			t.Fatalf("git rev-parse: %v: %s", err, out)
		}
		return strings.TrimSpace(out)
	}
	evil := mk(filepath.Join(work, "evil", "fledge-plugin-ev"))
	other := mk(filepath.Join(work, "other", "fledge-plugin-ev"))
	if out, err := gitRun(t, home, "clone", "-q", "--bare", filepath.Join(work, "evil", "fledge-plugin-ev"), filepath.Join(work, "evil", "bare.git")); err != nil {
		t.Fatalf("git clone --bare: %v: %s", err, out)
	}
	if err := os.Symlink(filepath.Join(work, "evil"), filepath.Join(work, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(work, "other", "fledge-plugin-ev"), filepath.Join(work, "evil", "hop")); err != nil {
		t.Fatal(err)
	}
	w := "file://" + filepath.ToSlash(work)
	for _, c := range []struct {
		url, head string
	}{
		{w + "/evil/fledge-plugin-ev", evil},
		{w + "/alias/fledge-plugin-ev", evil},
		{w + "//evil//fledge-plugin-ev/", evil},
		{w + "/./alias/../evil/fledge-plugin-ev", evil},
		{w + "/evil/bare", evil},
		{w + "/alias/bare.git", evil},
		{w + "/evil/hop", other},
		{w + "/evil/hop/../fledge-plugin-ev", other}, // hop/.. is other/, not evil/
	} {
		out, err := gitRun(t, home, "ls-remote", c.url, "HEAD")
		if err != nil {
			t.Errorf("git ls-remote %s: %v: %s", c.url, err, out)
			continue
		}
		if !strings.HasPrefix(out, c.head) {
			t.Fatalf("git ls-remote %s = %q, want HEAD %s", c.url, out, c.head)
		}
		r, err := Parse(c.url)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.url, err)
			continue
		}
		want := filepath.Join(work, "evil", "fledge-plugin-ev")
		if c.head == other {
			want = filepath.Join(work, "other", "fledge-plugin-ev")
		}
		if strings.HasSuffix(c.url, "bare") || strings.HasSuffix(c.url, "bare.git") {
			want = filepath.Join(work, "evil", "bare.git")
		}
		real, err := filepath.EvalSymlinks(want)
		if err != nil {
			t.Fatal(err)
		}
		if r.Path != filepath.ToSlash(real) {
			t.Errorf("Parse(%q) = %q; git opened %s", c.url, r.Path, real)
		}
	}
}

package cli

// Fetching from a git server that never answers: install, update and sync
// give up after FLEDGE_FETCH_TIMEOUT with fetch_failed saying so, and
// Ctrl+C (the command's context cancelled) ends them with exit 130 and
// error code interrupted, in text and under --json.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
)

// silentGitServer accepts connections on loopback and never sends a byte.
// It returns a plugin URL on it and a channel told of each request.
func silentGitServer(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan struct{}, 64)
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				// Told once fledge has asked for something: then it
				// is waiting for the answer.
				if _, err := c.Read(make([]byte, 1)); err == nil {
					select {
					case asked <- struct{}{}:
					default:
					}
				}
				_, _ = io.Copy(io.Discard, c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/o/fledge-plugin-sx", asked
}

// fledgeCtx runs fledge in-process with ctx as the command's context, the
// one Ctrl+C cancels.
func (f *e2eFixture) fledgeCtx(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	f.t.Helper()
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut,
		Getenv: func(k string) string { return f.env[k] }}
	code = run(ctx, NewFactory(s, "test"), args)
	return code, out.String(), errOut.String()
}

// silentFetchCases sets up, for install, update and sync, a command whose
// first fetch goes to the silent server at url.
func silentFetchCases(t *testing.T, f *e2eFixture, url string) map[string][]string {
	t.Helper()
	// update: a plugin installed from a repository that now lives on the
	// silent server.
	repo := newE2ERepo(t, filepath.Join(t.TempDir(), "fledge-plugin-sx"))
	commit := repo.commit(t, e2ePluginToml("sx", "1.0.0"), "")
	if code, out, errOut := f.fledge("plugins", "install", "file://"+filepath.ToSlash(repo.dir), "--yes", "--json"); code != ExitOK {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	paths, err := home.New(f.env["FLEDGE_HOME"])
	if err != nil {
		t.Fatal(err)
	}
	err = lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock()).Update(func(lf *lockfile.File) error {
		p, ok := lf.Get("fledge-plugin-sx")
		if !ok {
			return fmt.Errorf("not installed")
		}
		p.Source, p.URL = url, url
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// sync: a plugins.toml naming a plugin on the silent server.
	syncFile := filepath.Join(t.TempDir(), "plugins.toml")
	data := fmt.Sprintf("[[plugins]]\nname = \"fledge-plugin-other\"\nsource = %q\nurl = %q\nversion = \"1.0.0\"\ninstalled = \"2026-01-01\"\ncommands = []\nkind = \"git\"\ncommit = %q\n\n[plugins.capabilities]\n", url, url, commit)
	if err := os.WriteFile(syncFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string][]string{
		"install": {"plugins", "install", url, "--yes"},
		"update":  {"plugins", "update", "fledge-plugin-sx", "--yes"},
		"sync":    {"plugins", "sync", "--file", syncFile, "--yes"},
	}
}

// fetchErrorOf finds the one error in a command's JSON document: the
// document's own, or its only result's.
func fetchErrorOf(t *testing.T, f *e2eFixture, out string) jsonError {
	t.Helper()
	var doc struct {
		Error   *jsonError `json:"error"`
		Results []struct {
			Error *jsonError `json:"error"`
		} `json:"results"`
	}
	f.mustJSON(out, &doc)
	if doc.Error != nil {
		return *doc.Error
	}
	if len(doc.Results) == 1 && doc.Results[0].Error != nil {
		return *doc.Results[0].Error
	}
	t.Fatalf("no error in %s", out)
	return jsonError{}
}

func TestFetchFromSilentServerTimesOut(t *testing.T) {
	t.Parallel()
	url, _ := silentGitServer(t)
	f := newE2EFixture(t)
	cases := silentFetchCases(t, f, url)
	f.env["FLEDGE_FETCH_TIMEOUT"] = "300ms"
	for name, args := range cases {
		for _, asJSON := range []bool{false, true} {
			args := args
			if asJSON {
				args = append(append([]string{}, args...), "--json")
			}
			code, out, errOut := f.fledge(args...)
			if code != ExitFailure {
				t.Errorf("%s (json %v): exit %d, want %d\n%s\n%s", name, asJSON, code, ExitFailure, out, errOut)
				continue
			}
			msg := out + errOut
			if asJSON {
				je := fetchErrorOf(t, f, out)
				if je.Code != CodeFetchFailed {
					t.Errorf("%s: code %q, want %q", name, je.Code, CodeFetchFailed)
				}
				msg = je.Message
			}
			if !strings.Contains(msg, "timed out waiting for the server: nothing received for 300ms") {
				t.Errorf("%s (json %v): the error should say it timed out and after how long:\n%s", name, asJSON, msg)
			}
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(f.env["FLEDGE_HOME"], "plugins", ".staging")); len(entries) > 0 {
		t.Errorf("staging left behind: %v", entries)
	}
}

func TestFetchInterruptedExits130(t *testing.T) {
	t.Parallel()
	url, asked := silentGitServer(t)
	f := newE2EFixture(t)
	cases := silentFetchCases(t, f, url)
	for name, args := range cases {
		for _, asJSON := range []bool{false, true} {
			args := args
			if asJSON {
				args = append(append([]string{}, args...), "--json")
			}
			ctx, cancel := context.WithCancel(context.Background())
			type result struct {
				code        int
				out, errOut string
			}
			done := make(chan result, 1)
			go func() {
				code, out, errOut := f.fledgeCtx(ctx, args...)
				done <- result{code, out, errOut}
			}()
			select {
			case <-asked: // fledge is waiting on the server: Ctrl+C
			case r := <-done:
				t.Fatalf("%s: ended before reaching the server: exit %d\n%s\n%s", name, r.code, r.out, r.errOut)
			}
			cancel()
			var r result
			select {
			case r = <-done:
			case <-time.After(testutil.WaitLimit):
				t.Fatalf("%s (json %v): did not end after the interrupt", name, asJSON)
			}
			if r.code != ExitInterrupted {
				t.Errorf("%s (json %v): exit %d, want %d\n%s\n%s", name, asJSON, r.code, ExitInterrupted, r.out, r.errOut)
				continue
			}
			if asJSON {
				if je := fetchErrorOf(t, f, r.out); je.Code != CodeInterrupted {
					t.Errorf("%s: code %q, want %q", name, je.Code, CodeInterrupted)
				}
			}
		}
	}
}

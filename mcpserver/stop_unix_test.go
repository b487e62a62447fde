//go:build unix

package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/mcpserver"
)

// sleeper is a plugin without the protocol that starts a background job
// (which sh starts ignoring SIGINT) and waits for it, noting both pids.
const sleeper = `#!/bin/sh
sleep 300 &
echo $! > "$FLEDGE_PLUGIN_DIR/child.pid"
echo $$ > "$FLEDGE_PLUGIN_DIR/pid"
wait
`

func (e *env) installSleeper() string {
	return e.install(plugin{name: "fledge-plugin-sleeper", commands: []command{{name: "nap", binary: "bin/run"}},
		files: map[string]string{"bin/run": sleeper}})
}

// pids waits for the sleeper in dir to have started, and returns its pid
// and its background job's.
func pids(t *testing.T, dir string) []int {
	t.Helper()
	testutil.Eventually(t, "the plugin to start", func() bool { return exists(filepath.Join(dir, "pid")) })
	var out []int
	for _, f := range []string{"pid", "child.pid"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// gone reports whether pid has ended (a zombie nobody reaped yet has).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// allGone waits up to bound for every pid to end.
func allGone(t *testing.T, what string, bound time.Duration, pids []int) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for _, p := range pids {
		for !gone(p) {
			if time.Now().After(deadline) {
				syscall.Kill(p, syscall.SIGKILL)
				t.Fatalf("%s: process %d still runs %s later", what, p, bound)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestCancelStopsNonProtocol: cancelling a call stops a plugin without the
// protocol and what it started, within the runner's Kill.
func TestCancelStopsNonProtocol(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.installSleeper()
	cs := connect(t, e.server(nil), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nap", Arguments: map[string]any{}})
		done <- err
	}()
	ps := pids(t, dir)
	start := time.Now()
	cancel()
	<-done
	// The env's Kill is 1 s; the margin is for a loaded machine.
	allGone(t, "after a cancel", 10*time.Second, ps)
	t.Logf("gone %s after the cancel", time.Since(start))
}

// TestDeleteHangsUp: deleting an HTTP session mid-call stops the call's
// plugin and what it started, within HangUp.
func TestDeleteHangsUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.installSleeper()
	s := e.server(func(o *mcpserver.Options) {
		// Longer than the test waits: only the hang-up can stop it.
		o.Runner.Timeouts.Term, o.Runner.Timeouts.Kill = time.Minute, time.Minute
		o.HangUp = 300 * time.Millisecond
	})
	ts := httptest.NewServer(s.Handler(mcpserver.HTTPOptions{}))
	defer ts.Close()
	defer s.Shutdown()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL + mcpserver.Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nap", Arguments: map[string]any{}})
	ps := pids(t, dir)
	req, _ := http.NewRequest(http.MethodDelete, ts.URL+mcpserver.Path, nil)
	req.Header.Set("Mcp-Session-Id", cs.ID())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		t.Errorf("DELETE: %s", res.Status)
	}
	allGone(t, "after DELETE", 10*time.Second, ps)
}

// rawStdio starts `fledge mcp` with its stdin a pipe the test writes, and
// collects its stdout.
func (e *env) rawStdio(args ...string) (io.WriteCloser, *bytes.Buffer, func() error, *os.Process) {
	e.t.Helper()
	cmd, stderr := e.fledge(append([]string{"mcp"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	out := &bytes.Buffer{}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	wait := make(chan error, 1)
	go func() { wait <- cmd.Wait() }()
	e.t.Cleanup(func() { cmd.Process.Kill() })
	return in, out, func() error {
		select {
		case err := <-wait:
			if err != nil {
				return fmt.Errorf("%v\n%s", err, stderr)
			}
			return nil
		case <-time.After(20 * time.Second):
			return fmt.Errorf("fledge mcp did not exit within 20 s\n%s", stderr)
		}
	}, cmd.Process
}

const (
	initRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	napRequest = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nap","arguments":{}}}` + "\n"
)

// answered are the ids of the responses in out, each with whether it is
// a tool's error.
func answered(t *testing.T, out []byte) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				IsError bool `json:"isError"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout is not JSON-RPC: %q", sc.Text())
		}
		if m.ID != nil {
			got[string(m.ID)] = m.Error != nil || (m.Result != nil && m.Result.IsError)
		}
	}
	return got
}

// TestPipedRequests: requests piped in and then the end of input are all
// answered before the server exits.
func TestPipedRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-noisy", commands: []command{{name: "noisy", binary: "bin/run"}},
		files: map[string]string{"bin/run": "#!/bin/sh\necho \"piped $*\"\n"}})
	in, out, wait, _ := e.rawStdio()
	io.WriteString(in, initRequest+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"noisy","arguments":{}}}`+"\n"+
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`+"\n")
	in.Close()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	got := answered(t, out.Bytes())
	for _, id := range []string{"1", "2", "3", "4"} {
		if failed, ok := got[id]; !ok || failed {
			t.Errorf("request %s: answered %v, failed %v\n%s", id, ok, failed, out)
		}
	}
}

// TestStdioHangUps: the client closing its input mid-call, or SIGTERM to
// the server, stops the call's plugin and what it started; the call is
// answered and the server exits.
func TestStdioHangUps(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"eof", "sigterm", "sigint"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			dir := e.installSleeper()
			in, out, wait, proc := e.rawStdio()
			io.WriteString(in, initRequest+napRequest)
			ps := pids(t, dir)
			start := time.Now()
			switch how {
			case "eof":
				in.Close()
			case "sigterm":
				proc.Signal(syscall.SIGTERM)
			case "sigint":
				proc.Signal(syscall.SIGINT)
			}
			if err := wait(); err != nil {
				t.Fatal(err)
			}
			// Drain and HangUp are 2 s each; the margin is for a loaded
			// machine.
			allGone(t, how, 10*time.Second, ps)
			t.Logf("exited %s after the %s", time.Since(start), how)
			if _, ok := answered(t, out.Bytes())["9"]; !ok {
				t.Errorf("the call was not answered:\n%s", out)
			}
		})
	}
}

// wasmDriver is the runner's wasm test plugin, built (and compiled into
// the shared cache) by the first test that needs it.
var wasmDriver = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "fledge-mcp-wasm")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "driver.wasm")
	if err := testutil.BuildGo(out, "../runner/testdata/wasmdriver", "GOOS=wasip1", "GOARCH=wasm"); err != nil {
		return "", err
	}
	return out, nil
})

// TestCancelStopsWasm: cancelling a call stops a wasm plugin and the
// command it is running for the plugin (exec), which has a group of its
// own.
func TestCancelStopsWasm(t *testing.T) {
	t.Parallel()
	driver, err := wasmDriver()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	grants := manifest.Capabilities{Exec: true}
	e.install(plugin{name: "fledge-plugin-wasm", protocol: manifest.ProtocolV1, grants: grants, runtime: manifest.RuntimeWasm,
		commands: []command{{name: "drive", binary: "driver.wasm"}}, copies: map[string]string{"driver.wasm": driver}})
	if cache, ok := testutil.CacheDir("wasm"); ok {
		if err := os.MkdirAll(e.paths.CacheDir(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(cache, e.paths.WasmCacheDir()); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(e.root, "pids")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, _ := json.Marshal(map[string]string{"command": strings.ReplaceAll(sleeper[len("#!/bin/sh\n"):], "$FLEDGE_PLUGIN_DIR", dir)})
	cs := connect(t, e.server(nil), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "drive", Arguments: map[string]any{"args": []string{"init", "exec:" + string(cmd)}},
			Meta: mcp.Meta{mcpserver.MetaTimeout: 120}})
		done <- err
	}()
	ps := pids(t, dir)
	cancel()
	<-done
	allGone(t, "after a cancel", 10*time.Second, ps)
}

// TestHTTPClientGone: a client that goes away from the request carrying
// its call has the call hung up: its plugin and what it started stop
// within HangUp.
func TestHTTPClientGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.installSleeper()
	s := e.server(func(o *mcpserver.Options) {
		o.Runner.Timeouts.Term, o.Runner.Timeouts.Kill = time.Minute, time.Minute
		o.HangUp = 300 * time.Millisecond
	})
	ts := httptest.NewServer(s.Handler(mcpserver.HTTPOptions{}))
	defer ts.Close()
	defer s.Shutdown()
	post := func(ctx context.Context, session, body string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+mcpserver.Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			t.Fatal(err)
		}
		return res
	}
	lines := strings.SplitN(initRequest, "\n", 3)
	res := post(context.Background(), "", lines[0])
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	session := res.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("no session: %s", res.Status)
	}
	res = post(context.Background(), session, lines[1])
	res.Body.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if res := post(ctx, session, napRequest); res != nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}()
	ps := pids(t, dir)
	cancel()
	allGone(t, "after the client went away", 10*time.Second, ps)
}

package mcpserver_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/mcpserver"
	"github.com/corvidlabs/fledge-go/runner"
)

// fledge returns the built fledge with the env's FLEDGE_HOME, run in its
// project, stderr captured.
func (e *env) fledge(args ...string) (*exec.Cmd, *testutil.SyncBuffer) {
	cmd := exec.Command(fledgeBin, args...)
	if len(e.wrap) > 0 {
		cmd = exec.Command(e.wrap[0], append(append(e.wrap[1:], fledgeBin), args...)...)
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(e.root, "home"), "LANG=C",
		"FLEDGE_HOME=" + e.paths.Root(), "NO_COLOR=1"}
	cmd.Dir = e.project
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	return cmd, stderr
}

// stdio starts `fledge mcp` with args and connects a go-sdk client to it
// over its stdin and stdout.
func (e *env) stdio(opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *testutil.SyncBuffer, *exec.Cmd) {
	e.t.Helper()
	cmd, stderr := e.fledge(append([]string{"mcp"}, args...)...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, opts).Connect(context.Background(),
		&mcp.CommandTransport{Command: cmd, TerminateDuration: 15 * time.Second}, nil)
	if err != nil {
		e.t.Fatalf("connect: %v\n%s", err, stderr)
	}
	e.t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			e.t.Errorf("close: %v\n%s", err, stderr)
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() != 0 {
			e.t.Errorf("fledge mcp did not exit 0 when the client hung up: %v\n%s", cmd.ProcessState, stderr)
		}
	})
	return cs, stderr, cmd
}

// noisy is a plugin without the protocol that writes to its stdout and
// stderr, and starts a grandchild that holds both and writes to them once
// the test says so (the file "go" in the plugin's directory: at the
// latest a minute later), after the plugin's call has returned, then says
// it has written (the file "wrote").
const noisy = `#!/bin/sh
echo "plain output $*"
echo "plain error" >&2
d=$FLEDGE_PLUGIN_DIR
(
  trap '' PIPE
  i=0
  while [ ! -f "$d/go" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
  echo "grandchild output"; echo "grandchild error" >&2
  touch "$d/wrote"
) &
`

// TestStdioBinary runs the built fledge as agent hosts do, speaking MCP on
// its stdin and stdout, with the go-sdk client: list, a shell, Python and
// Go plugin, grants, a schema error, a hanging plugin and cancellation;
// and whatever plugins print never reaches the protocol stream.
func TestStdioBinary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.install(plugin{name: "fledge-plugin-sh", protocol: manifest.ProtocolV1,
		commands: []command{{name: "shargs", binary: "bin/run", args: []manifest.Arg{
			{Name: "target", Type: "string", Required: true}, {Name: "count", Type: "integer"}, {Name: "force", Type: "boolean"}}}},
		files: map[string]string{"bin/run": shArgs}})
	e.installGo("fledge-plugin-go", "gocmd", manifest.Capabilities{Store: true})
	noisyDir := e.install(plugin{name: "fledge-plugin-noisy", commands: []command{{name: "noisy", binary: "bin/run"}},
		files: map[string]string{"bin/run": noisy}})
	// A protocol plugin that breaks the protocol on its stdout.
	e.install(plugin{name: "fledge-plugin-junk", protocol: manifest.ProtocolV1,
		commands: []command{{name: "junk", binary: "bin/run"}},
		files: map[string]string{"bin/run": "#!/bin/sh\nIFS= read -r init\necho 'not json'\necho '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'\n" +
			"echo '{\"type\":\"output\",\"text\":\"kept\"}'\n"}})
	waitDir := e.installWaiter("fledge-plugin-wait", "wait")
	python := false
	if _, err := exec.LookPath("python3"); err == nil {
		python = true
		e.installScript("fledge-plugin-deploy", "deploy", "deploy.py", manifest.Capabilities{Store: true})
	}

	// The server's timeout is far beyond what any call here takes on a
	// busy machine; the hanging plugin's call asks for less.
	cs, stderr, proc := e.stdio(nil, "--timeout", "2m")
	if runtime.GOOS == "linux" {
		// fledge keeps the protocol on a copy of its stdout and points
		// file descriptor 1 at stderr: nothing else can write to the
		// protocol stream. (Only a user with CAP_SYS_PTRACE can look: the
		// server is not dumpable, see TestStdioPluginCannotForgeTheStream.)
		fd := func(n string) string {
			l, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(proc.Process.Pid), "fd", n))
			if err != nil && !errors.Is(err, os.ErrPermission) {
				t.Fatal(err)
			}
			return l
		}
		if fd("1") != fd("2") {
			t.Errorf("fledge mcp's fd 1 is %s, not its stderr %s", fd("1"), fd("2"))
		}
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	want := []string{"gocmd", "junk", "noisy", "shargs", "wait"}
	if python {
		want = []string{"deploy", "gocmd", "junk", "noisy", "shargs", "wait"}
	}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}

	if r := call(t, cs, "shargs", map[string]any{"target": "t", "force": false}, nil); r.IsError || text(r) != "1=t\n2=\n3=false\n" {
		t.Errorf("shell: %v %q", r.IsError, text(r))
	}
	r := call(t, cs, "gocmd", map[string]any{"args": []string{"exec", "echo", "hi"}}, nil)
	if r.IsError || !strings.Contains(text(r), `"code":126`) {
		t.Errorf("go, exec denied: %v %q", r.IsError, text(r))
	}
	if python {
		r := call(t, cs, "deploy", map[string]any{"args": []string{"a b"}}, nil)
		if want := "Deployed to staging (args [\"a b\"])\n"; r.IsError || text(r) != want {
			t.Errorf("python: %v %q", r.IsError, text(r))
		}
	}
	if r := call(t, cs, "shargs", map[string]any{"target": 1}, nil); !r.IsError || errorCode(r) != mcpserver.CodeInvalidArguments {
		t.Errorf("schema error: %v %q", r.IsError, text(r))
	}

	// Plugin output, however written, comes back as the result only.
	if r := call(t, cs, "noisy", map[string]any{"args": []string{"x"}}, nil); r.IsError || text(r) != "plain output x\n" {
		t.Errorf("noisy: %v %q", r.IsError, text(r))
	}
	// The grandchild writes now, to the pipes fledge no longer reads.
	if err := os.WriteFile(filepath.Join(noisyDir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the noisy grandchild's late writes", func() bool { return exists(filepath.Join(noisyDir, "wrote")) })
	if r := call(t, cs, "junk", nil, nil); r.IsError || text(r) != "kept" {
		t.Errorf("junk: %v %q", r.IsError, text(r))
	}

	// A hanging plugin: the call asks for a shorter timeout than the
	// server's, and gets it.
	r = call(t, cs, "gocmd", map[string]any{"args": []string{"sleep", "60"}}, mcp.Meta{mcpserver.MetaTimeout: 1})
	if errorCode(r) != runner.CodeTimeout || !strings.Contains(text(r), "timed out after 1s") {
		t.Errorf("hang: %s %q, want a timeout after 1s", errorCode(r), text(r))
	}

	// Cancellation reaches the plugin as the protocol's cancel.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		done <- err
	}()
	testutil.Eventually(t, "the plugin to start", func() bool { return exists(filepath.Join(waitDir, "started")) })
	cancel()
	testutil.Receive(t, "the cancelled call to return", done)
	testutil.Eventually(t, "the plugin's cancel", func() bool {
		data, _ := os.ReadFile(filepath.Join(waitDir, "got.log"))
		return strings.Contains(string(data), `"reason":"user_interrupt"`)
	})

	// Still one clean session after all that.
	if r := call(t, cs, "gocmd", map[string]any{"args": []string{"exit", "0"}}, nil); r.IsError || text(r) != "exiting\n" {
		t.Errorf("last call: %v %q", r.IsError, text(r))
	}
	log := stderr.String()
	for _, w := range []string{"fledge mcp: serving", "plain error"} {
		if !strings.Contains(log, w) {
			t.Errorf("stderr lacks %q:\n%s", w, log)
		}
	}
}

// TestStdioInteraction: over the real binary's stdio, a dangerous tool is
// refused without a way to confirm, then confirmed through elicitation; a
// plugin's questions round-trip through elicitation; its log and progress
// arrive as notifications.
func TestStdioInteraction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dangerDir := e.install(plugin{name: "fledge-plugin-danger", protocol: manifest.ProtocolV1,
		commands: []command{{name: "wipe", binary: "bin/run", dangerous: true}},
		files:    map[string]string{"bin/run": shArgs + "touch \"$FLEDGE_PLUGIN_DIR/ran\"\n"}})
	askDir := e.driver("fledge-plugin-ask", "ask", strings.Join([]string{
		`{"type":"log","level":"info","message":"asking"}`,
		`?{"type":"select","id":"s","message":"Pick","options":["red","green"],"default":0}`,
		`{"type":"progress","message":"Working","current":1,"total":2}`,
		`{"type":"progress","message":"Working","current":2,"total":2}`,
		`{"type":"output","text":"done\n"}`,
	}, "\n")+"\n", manifest.Capabilities{})

	plain, _, _ := e.stdio(nil)
	if r := call(t, plain, "wipe", map[string]any{"args": []string{"-rf"}}, nil); !r.IsError || errorCode(r) != mcpserver.CodeApprovalRequired || exists(filepath.Join(dangerDir, "ran")) {
		t.Errorf("refused: %v %q", r.IsError, text(r))
	}

	var mu sync.Mutex
	var notes []string
	el := &elicitations{answer: func(p *mcp.ElicitParams) *mcp.ElicitResult {
		if strings.Contains(p.Message, "dangerous") {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "2"}}
	}}
	cs, _, _ := e.stdio(&mcp.ClientOptions{
		ElicitationHandler: el.handler,
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, "log "+mustJSON(r.Params.Data))
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, "progress "+mustJSON(r.Params.Progress))
		},
	})
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if r := call(t, cs, "wipe", map[string]any{"args": []string{"-rf"}}, nil); r.IsError || text(r) != "1=-rf\n" || !exists(filepath.Join(dangerDir, "ran")) {
		t.Errorf("confirmed: %v %q", r.IsError, text(r))
	}
	r := call(t, cs, "ask", nil, mcp.Meta{"progressToken": 7})
	if r.IsError || text(r) != "done\n" {
		t.Errorf("ask: %v %q", r.IsError, text(r))
	}
	if got := mustJSON(responses(t, askDir)); got != `["green"]` {
		t.Errorf("the plugin got %s", got)
	}
	// Notifications may be handled after the result arrives.
	want := `log "asking"|progress 1|progress 2`
	noted := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(notes, "|")
	}
	testutil.Eventually(t, "the notifications", func() bool { return len(noted()) >= len(want) })
	if g := noted(); g != want {
		t.Errorf("notifications %q, want %q", g, want)
	}
}

// TestHTTPBinary runs `fledge mcp --http 127.0.0.1:0` and uses it with the
// go-sdk's streamable HTTP client: list, a call with elicitation and
// progress. Requests from another origin, through a rebound host name, or
// without the token are refused; a non-loopback address needs
// --allow-remote and a token.
func TestHTTPBinary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	askDir := e.driver("fledge-plugin-ask", "ask", strings.Join([]string{
		`?{"type":"confirm","id":"c","message":"Go on?","default":false}`,
		`{"type":"progress","message":"Working","current":1,"total":1}`,
		`{"type":"output","text":"done\n"}`,
	}, "\n")+"\n", manifest.Capabilities{})

	for _, args := range [][]string{{"--http", "0.0.0.0:0"}, {"--http", "0.0.0.0:0", "--allow-remote"}, {"--http", "nonsense"}} {
		cmd, stderr := e.fledge(append([]string{"mcp"}, args...)...)
		if err := cmd.Run(); cmd.ProcessState.ExitCode() != 2 {
			t.Errorf("mcp %v: %v, want exit 2\n%s", args, err, stderr)
		}
	}

	const token = "s3cret-token"
	cmd, stderr := e.fledge("mcp", "--http", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, "FLEDGE_MCP_TOKEN="+token)
	pr, pw := io.Pipe()
	cmd.Stderr = io.MultiWriter(stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("fledge mcp --http after an interrupt: %v\n%s", err, stderr)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("fledge mcp --http did not stop on an interrupt\n%s", stderr)
		}
		pw.Close()
	})
	endpoint := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	var url string
	select {
	case url = <-endpoint:
	case <-time.After(30 * time.Second):
		t.Fatalf("no address on stderr:\n%s", stderr)
	}

	post := func(mod func(*http.Request)) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		mod(req)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if c := post(func(*http.Request) {}); c != http.StatusOK {
		t.Errorf("a plain initialize: %d", c)
	}
	// A loopback host is one in any case.
	port, _, _ := strings.Cut(strings.TrimPrefix(url, "http://127.0.0.1:"), "/")
	for _, host := range []string{"localhost", "LOCALHOST", "LocalHost"} {
		if c := post(func(r *http.Request) { r.Host = host + ":" + port }); c != http.StatusOK {
			t.Errorf("Host %s: answered %d", host, c)
		}
	}
	for name, mod := range map[string]func(*http.Request){
		"another origin": func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") },
		"a rebound host": func(r *http.Request) { r.Host = "evil.example" },
		"no token":       func(r *http.Request) { r.Header.Del("Authorization") },
		"a wrong token":  func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") },
	} {
		if c := post(mod); c < 400 {
			t.Errorf("%s: answered %d", name, c)
		}
	}

	var mu sync.Mutex
	var progress []float64
	el := &elicitations{answer: func(*mcp.ElicitParams) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": true}}
	}}
	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: el.handler,
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, r.Params.Progress)
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "ask" {
		t.Fatalf("list: %v %v", err, tools)
	}
	r := call(t, cs, "ask", nil, mcp.Meta{"progressToken": "h"})
	if r.IsError || text(r) != "done\n" {
		t.Errorf("ask: %v %q", r.IsError, text(r))
	}
	if got := mustJSON(responses(t, askDir)); got != `[true]` {
		t.Errorf("the plugin got %s", got)
	}
	testutil.Eventually(t, "the progress notification", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) > 0
	})
	mu.Lock()
	defer mu.Unlock()
	if mustJSON(progress) != `[1]` {
		t.Errorf("progress %v", progress)
	}
}

// bearer sends the token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

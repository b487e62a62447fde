package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/kvstore"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/wasmhost"
)

// wasmDriver is testdata/wasmdriver built for wasip1 by TestMain, and
// wasmCache the compilation cache it (and the SDK plugin) was compiled
// into, shared by every test's FLEDGE_HOME so that each module is compiled
// once (and kept between runs: testutil.CacheDir).
var wasmDriver, wasmCache string

func buildWasmDriver(dir string) error {
	wasmDriver = filepath.Join(dir, "driver.wasm")
	if err := testutil.BuildGo(wasmDriver, "./testdata/wasmdriver", "GOOS=wasip1", "GOARCH=wasm"); err != nil {
		return err
	}
	module, err := os.ReadFile(wasmDriver)
	if err != nil {
		return err
	}
	return wasmhost.Check(context.Background(), module, wasmCache)
}

// installWasm installs the wasm driver as command "drive".
func (e *testEnv) installWasm(grants manifest.Capabilities) string {
	e.t.Helper()
	m := "[plugin]\nname = \"fledge-plugin-wasm\"\nversion = \"1.2.3\"\nprotocol = \"fledge-v1\"\nruntime = \"wasm\"\n" +
		"\n[[commands]]\nname = \"drive\"\nbinary = \"driver.wasm\"\n"
	dir := e.install(plugin{name: "fledge-plugin-wasm", protocol: "fledge-v1", commands: map[string]string{"drive": "driver.wasm"},
		copies: map[string]string{"driver.wasm": wasmDriver}, grants: grants, requests: grants, manifest: m})
	if _, err := os.Lstat(e.paths.WasmCacheDir()); err != nil {
		mustMkdir(e.t, e.paths.CacheDir())
		if err := os.Symlink(wasmCache, e.paths.WasmCacheDir()); err != nil {
			e.t.Fatal(err)
		}
	}
	return dir
}

// drive runs the wasm driver with steps, capturing output.
func (e *testEnv) drive(r *Runner, steps ...string) (*Result, error) {
	e.t.Helper()
	if r == nil {
		r = e.runner()
	}
	return e.runWith(r, Request{Command: "drive", Args: steps, Capture: true})
}

// reported returns the data of the driver's report for step (the first).
func reported(t *testing.T, out, step string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(l, step+" "); ok {
			_, data, _ := strings.Cut(rest, " ")
			return data
		}
	}
	t.Fatalf("no %q report in output:\n%s", step, out)
	return ""
}

func TestWasmInitOutputAndExit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	res, err := e.drive(nil, "init", "args", "env", "stdout:plain text\n", "recv", "exit:7")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, e.stderr)
	}
	if res.ExitCode != 7 || !res.Started {
		t.Fatalf("exit code %d (started %v), want 7", res.ExitCode, res.Started)
	}
	var init map[string]any
	if err := json.Unmarshal([]byte(reported(t, res.Output, "init")), &init); err != nil {
		t.Fatalf("init is not JSON: %v\n%s", err, res.Output)
	}
	if init["type"] != "init" || init["command"] != "drive" {
		t.Errorf("init = %v", init)
	}
	if args := reported(t, res.Output, "args"); args != "drive|init|args|env|stdout:plain text" { // (the report ends at the newline)
		t.Errorf("argv = %q, want the command and its arguments", args)
	}
	if env := reported(t, res.Output, "env"); env != "" {
		t.Errorf("the plugin sees environment variables: %q", env)
	}
	if !strings.Contains(res.Output, "plain text\n") {
		t.Errorf("WASI stdout is not shown as output:\n%s", res.Output)
	}
	// Nothing was owed: recv returns 0 at once, as in the Rust fledge.
	if !strings.Contains(res.Output, "recv 0 \n") {
		t.Errorf("recv with nothing pending did not return 0:\n%s", res.Output)
	}
}

func TestWasmExitWays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	for _, tc := range []struct {
		steps []string
		code  int
	}{
		{[]string{"init"}, 0},     // returning from main
		{[]string{"osexit:4"}, 4}, // WASI proc_exit
		{[]string{"exit:0"}, 0},   // fledge.exit
		{[]string{"exit:300"}, 1}, // out of range reads as failure, never success
		{[]string{"panic"}, 2},    // the Go runtime's own exit code
		{[]string{"exit:-1"}, 1},  // never the wazero cancel code
		{[]string{"exit:255"}, 255},
	} {
		res, err := e.drive(nil, tc.steps...)
		if err != nil {
			t.Fatalf("%v: %v", tc.steps, err)
		}
		if res.ExitCode != tc.code {
			t.Errorf("%v: exit code %d, want %d", tc.steps, res.ExitCode, tc.code)
		}
	}
}

func TestWasmGrantedCapabilities(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{Exec: true, Store: true, Metadata: true})
	res, err := e.drive(nil,
		"init",
		`exec:{"command":"echo hi; echo err >&2"}`,
		`store_set:{"key":"k","value":"v1"}`,
		"store_get:k",
		"store_get:missing",
		`metadata:["git_tags"]`,
	)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, e.stderr)
	}
	var ex struct {
		Code           int
		Stdout, Stderr string
	}
	if err := json.Unmarshal([]byte(reported(t, res.Output, "exec")), &ex); err != nil || ex.Code != 0 || ex.Stdout != "hi\n" || ex.Stderr != "err\n" {
		t.Errorf("exec result %+v (%v):\n%s", ex, err, res.Output)
	}
	if got := reported(t, res.Output, "store_get"); got != `"v1"` {
		t.Errorf("store_get = %q, want \"v1\"", got)
	}
	if !strings.Contains(res.Output, "store_get 4 null\n") {
		t.Errorf("a missing key is not null:\n%s", res.Output)
	}
	if got := reported(t, res.Output, "metadata"); !strings.Contains(got, `"git_tags"`) {
		t.Errorf("metadata = %q", got)
	}
	// The store is fledge's, shared with native plugins' protocol.
	v, ok, err := kvstore.ForPlugin(e.paths, "fledge-plugin-wasm").Get("k")
	if err != nil || !ok || v != "v1" {
		t.Errorf("store file holds %q %v %v", v, ok, err)
	}
}

func TestWasmDeniedCapabilitiesAnswerAsNative(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	res, err := e.drive(nil,
		"init",
		`exec:{"command":"echo hi"}`,
		`store_set:{"key":"k","value":"v1"}`,
		"store_get:k",
		`metadata:["git_tags"]`,
	)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, e.stderr)
	}
	var ex struct{ Code int }
	if json.Unmarshal([]byte(reported(t, res.Output, "exec")), &ex); ex.Code != 126 {
		t.Errorf("denied exec: %s", reported(t, res.Output, "exec"))
	}
	if got := reported(t, res.Output, "store_get"); got != "null" {
		t.Errorf("denied load = %q, want null", got)
	}
	if got := reported(t, res.Output, "metadata"); got != "{}" {
		t.Errorf("denied metadata = %q, want {}", got)
	}
	if len(res.Denied) != 3 {
		t.Errorf("denied = %v, want exec, store, metadata", res.Denied)
	}
	if _, ok, _ := kvstore.ForPlugin(e.paths, "fledge-plugin-wasm").Get("k"); ok {
		t.Error("a denied store_set was stored")
	}
}

func TestWasmQuestionsAreAnswered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	e.ui.answers = []any{"Ada", true, 1, []int{0, 2}}
	r := e.runner()
	r.Interactive = true
	res, err := e.drive(r,
		"init",
		`send:{"type":"prompt","id":"1","message":"Name?","default":"x"}`, "recv",
		`send:{"type":"confirm","id":2,"message":"Sure?"}`, "recv",
		`send:{"type":"select","id":"3","message":"Pick","options":["a","b"]}`, "recv",
		`send:{"type":"multi_select","id":"4","message":"Many","options":["a","b","c"]}`, "recv",
		`send:{"type":"progress","message":"working","current":1,"total":2}`,
		`send:{"type":"log","level":"warn","message":"careful"}`,
	)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, e.stderr)
	}
	for _, want := range []string{
		`{"type":"response","id":"1","value":"Ada"}`,
		`{"type":"response","id":2,"value":true}`,
		`{"type":"response","id":"3","value":"b"}`,
		`{"type":"response","id":"4","value":["a","c"]}`,
	} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("missing %s in:\n%s", want, res.Output)
		}
	}
	if len(e.ui.progress) == 0 || e.ui.progress[0].Message != "working" || !e.ui.progress[0].Determinate {
		t.Errorf("progress = %+v", e.ui.progress)
	}
	if len(e.ui.logs) != 1 || e.ui.logs[0] != "fledge-plugin-wasm warn careful" {
		t.Errorf("logs = %q", e.ui.logs)
	}
}

func TestWasmNonInteractiveTakesDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	r := e.runner()
	r.Interactive = true
	res, err := e.runWith(r, Request{Command: "drive", NonInteractive: true, Capture: true, Args: []string{
		"init",
		`send:{"type":"prompt","id":"1","message":"Name?","default":"dflt"}`, "recv",
		`send:{"type":"confirm","id":"2","message":"No default?"}`, "recv",
	}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(res.Output, `"value":"dflt"`) || !strings.Contains(res.Output, `{"type":"cancel","id":"2","reason":"non_interactive"}`) {
		t.Errorf("--ni answers:\n%s", res.Output)
	}
}

func TestWasmTinyRecvBuffer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{Store: true})
	long := strings.Repeat("é", 500)
	res, err := e.drive(nil, "init", `store_set:{"key":"k","value":"`+long+`"}`,
		`send:{"type":"load","id":"9","key":"k"}`, "recv:3", "recv1:2", "recv1:2")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	want := `{"type":"response","id":"9","value":"` + long + `"}`
	if got := reported(t, res.Output, "recv"); got != want {
		t.Errorf("reassembled over 3-byte reads:\n got %q\nwant %q", got, want)
	}
	// Nothing owed and nothing waiting: 0, whatever the buffer.
	if !strings.Contains(res.Output, "recv1 0 \n") {
		t.Errorf("recv after the whole message:\n%s", res.Output)
	}
}

func TestWasmFilesystemScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.project, "data.txt"), "project data", 0o644)
	secret := filepath.Join(e.dir, "secret.txt")
	writeFile(t, secret, "outside", 0o644)
	if err := os.Symlink(secret, filepath.Join(e.project, "escape")); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		fs                       string
		readProject, writePlugin bool
	}{{"none", false, false}, {"project", true, false}, {"plugin", true, true}} {
		t.Run(tc.fs, func(t *testing.T) {
			e.installWasm(manifest.Capabilities{Filesystem: tc.fs})
			res, err := e.drive(nil, "read:/project/data.txt", "write:/project/new.txt=x",
				"write:/plugin/kept.txt=persisted", "read:/project/escape", "symlink:/etc/passwd=/plugin/link")
			if err != nil {
				t.Fatalf("run: %v\n%s", err, e.stderr)
			}
			if got := reported(t, res.Output, "read"); (got == "project data") != tc.readProject {
				t.Errorf("read /project/data.txt = %q", got)
			}
			if got := reported(t, res.Output, "write"); got == "ok" {
				t.Errorf("a write to /project succeeded")
			}
			if _, err := os.Stat(filepath.Join(e.project, "new.txt")); err == nil {
				t.Errorf("the write reached the project")
			}
			if strings.Contains(res.Output, "outside") {
				t.Errorf("a symlink led out of the project:\n%s", res.Output)
			}
			kept := filepath.Join(e.paths.PluginFilesDir("fledge-plugin-wasm"), "kept.txt")
			data, err := os.ReadFile(kept)
			if tc.writePlugin != (err == nil && string(data) == "persisted") {
				t.Errorf("/plugin write: file %q %v", data, err)
			}
			if _, err := os.Lstat(filepath.Join(e.paths.PluginFilesDir("fledge-plugin-wasm"), "link")); err == nil {
				t.Errorf("the plugin created a symlink in /plugin")
			}
			os.RemoveAll(e.paths.PluginFilesDir("fledge-plugin-wasm"))
		})
	}
}

func TestWasmLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	for _, tc := range []struct {
		name  string
		steps []string
		lim   wasmhost.Limits
		tmo   time.Duration
		code  string
		words string
	}{
		{"infinite loop", []string{"loop"}, wasmhost.Limits{Compute: 300 * time.Millisecond}, 0, CodeTimeout, "compute budget"},
		{"memory growth", []string{"grow"}, wasmhost.Limits{Memory: 64 << 20}, 0, CodeCrashed, "memory"},
		{"wall clock", []string{"sleep:20000"}, wasmhost.Limits{}, 300 * time.Millisecond, CodeTimeout, "timed out"},
		{"huge send", []string{"huge:2000000"}, wasmhost.Limits{}, 0, CodeMalformedResponse, "2000000 bytes"},
		{"send out of bounds", []string{"oob-send"}, wasmhost.Limits{}, 0, CodeCrashed, "outside its memory"},
		{"recv out of bounds", []string{"init", `send:{"type":"prompt","id":"1","message":"q","default":"d"}`, "oob-recv"}, wasmhost.Limits{}, 0, CodeCrashed, "outside its memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.runner()
			r.Wasm = testWasm(tc.lim)
			res, err := e.runWith(r, Request{Command: "drive", Args: tc.steps, Capture: true, Timeout: tc.tmo})
			if CodeOf(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("err = %v (%s), want %s mentioning %q", err, CodeOf(err), tc.code, tc.words)
			}
			if res.Success() {
				t.Error("reported success")
			}
		})
	}
}

func TestWasmCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	// Blocked waiting for a question's answer: the cancel reaches recv,
	// sent once the question is asked. Nothing but the plugin's own exit
	// ends the run (the patient runner).
	e.ui.answers = []any{block{}}
	r := e.patient()
	r.Interactive = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for !e.ui.wasAsked() {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	res, err := runBounded(t, r, ctx, Request{Command: "drive", Capture: true, Args: []string{
		"init", `send:{"type":"prompt","id":"1","message":"q"}`, "recv", "recv", "exit:5"}})
	if CodeOf(err) != CodeInterrupted {
		t.Fatalf("err = %v, want interrupted", err)
	}
	if !strings.Contains(res.Output, `"type":"cancel"`) || res.ExitCode != 5 {
		t.Errorf("the plugin did not see the cancel and exit on its own (exit %d):\n%s", res.ExitCode, res.Output)
	}

	// Spinning without reading: stopped on the Term schedule, once it says
	// it spins.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() {
		for !strings.Contains(e.stderr.String(), "spinning") {
			time.Sleep(10 * time.Millisecond)
		}
		cancel2()
	}()
	res, err = runBounded(t, e.runner(), ctx2, Request{Command: "drive", Args: []string{"stderr:spinning\n", "loop"}})
	if CodeOf(err) != CodeInterrupted || !res.Signaled {
		t.Errorf("err = %v, signaled %v", err, res.Signaled)
	}
}

func TestWasmStderrIsCleaned(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	if _, err := e.drive(nil, "stderr:bad \x1b]0;title\x07 news\n"); err != nil {
		t.Fatal(err)
	}
	got := e.stderr.String()
	if !strings.Contains(got, "news") || strings.Contains(got, "\x1b") || strings.Contains(got, "\x07") {
		t.Errorf("stderr = %q", got)
	}
}

// sdkNative and sdkWasm are testdata/sdkplugin built both ways by TestMain.
var sdkNative, sdkWasm string

func buildSDKPlugin(dir string) error {
	sdkNative = filepath.Join(dir, "sdkplugin")
	sdkWasm = filepath.Join(dir, "sdkplugin.wasm")
	if err := testutil.BuildGo(sdkNative, "./testdata/sdkplugin"); err != nil {
		return err
	}
	if err := testutil.BuildGo(sdkWasm, "./testdata/sdkplugin", "GOOS=wasip1", "GOARCH=wasm"); err != nil {
		return err
	}
	module, err := os.ReadFile(sdkWasm)
	if err != nil {
		return err
	}
	return wasmhost.Check(context.Background(), module, wasmCache)
}

// TestWasmSDKPluginRunsAsNative runs one pluginsdk plugin built natively
// and for wasip1: the same questions, grants and output.
func TestWasmSDKPluginRunsAsNative(t *testing.T) {
	t.Parallel()
	grants := manifest.Capabilities{Exec: true, Store: true, Metadata: true}
	var outputs []string
	for _, wasm := range []bool{false, true} {
		e := newEnv(t)
		runtime, bin, src := "", "bin/sdkplugin", sdkNative
		if wasm {
			runtime, bin, src = "runtime = \"wasm\"\n", "sdkplugin.wasm", sdkWasm
			mustMkdir(t, e.paths.CacheDir())
			if err := os.Symlink(wasmCache, e.paths.WasmCacheDir()); err != nil {
				t.Fatal(err)
			}
		}
		m := "[plugin]\nname = \"fledge-plugin-sdk\"\nversion = \"1.0.0\"\nprotocol = \"fledge-v1\"\n" + runtime +
			"\n[[commands]]\nname = \"sdk\"\nbinary = \"" + bin + "\"\n"
		e.install(plugin{name: "fledge-plugin-sdk", protocol: "fledge-v1", commands: map[string]string{"sdk": bin},
			copies: map[string]string{bin: src}, grants: grants, requests: grants, manifest: m})
		e.ui.answers = []any{"Ada", true, 2, []int{0, 2}}
		r := e.runner()
		r.Interactive = true
		res, err := e.runWith(r, Request{Command: "sdk", Args: []string{"one", "two"}, Capture: true})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("wasm=%v: %v (exit %d)\n%s", wasm, err, res.ExitCode, e.stderr)
		}
		if len(e.ui.asked) != 4 || len(e.ui.progress) == 0 || len(e.ui.logs) != 1 {
			t.Errorf("wasm=%v: asked %q, progress %d, logs %q", wasm, e.ui.asked, len(e.ui.progress), e.ui.logs)
		}
		outputs = append(outputs, res.Output)
	}
	want := "hello Ada true c x,z last=Ada/true exec=0:from-exec meta=1 args=[one two]\n"
	if outputs[0] != want || outputs[1] != want {
		t.Errorf("native output %q\n  wasm output %q\n         want %q", outputs[0], outputs[1], want)
	}
}

// TestWasmSDKPluginWithoutArgv: the Rust fledge gives a wasm plugin no argv
// at all; a pluginsdk plugin must still run (it once indexed os.Args[0]).
func TestWasmSDKPluginWithoutArgv(t *testing.T) {
	t.Parallel()
	module, err := os.ReadFile(sdkWasm)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := wasmhost.Start(wasmhost.Config{Module: module, CacheDir: wasmCache})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Stdin().Write([]byte(`{"type":"init","protocol":"fledge-v1","args":[]}` + "\n")); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 4096)
	n, _ := inst.Stdout().Read(line)
	inst.Stdin().Close()
	testutil.Receive(t, "the plugin to exit once its stdin closed", inst.Exited())
	if !strings.Contains(string(line[:n]), `"type":"prompt"`) {
		code, _, f := inst.Result()
		t.Fatalf("first message %q (exit %d, %v)", line[:n], code, f)
	}
}

// slowUI answers every prompt with "late" once the run's wall clock would
// have expired, had it kept running while the question waited.
type slowUI struct {
	*scriptUI
	late <-chan time.Time
}

func (u slowUI) Prompt(ctx context.Context, q Question) (string, error) {
	select {
	case <-u.late:
		return "late", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// TestWasmClockStopsForQuestions: a person taking longer than the wasm
// run's wall clock to answer does not time the plugin out. The answer
// comes a second after the whole timeout has passed since the run began;
// the timeout leaves a busy machine seconds to start the plugin and get
// to its question. (TestRunClock holds the clock itself to the
// millisecond, on a clock of its own.)
func TestWasmClockStopsForQuestions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{})
	const timeout = 5 * time.Second
	r := e.patient()
	r.Interactive = true
	r.UI = slowUI{scriptUI: e.ui, late: time.After(timeout + time.Second)}
	res, err := e.runWith(r, Request{Command: "drive", Capture: true, Timeout: timeout, Args: []string{
		"init", `send:{"type":"prompt","id":"1","message":"Name?"}`, "recv"}})
	if err != nil || !strings.Contains(res.Output, `"value":"late"`) {
		t.Fatalf("err %v, output:\n%s", err, res.Output)
	}
}

// TestWasmSDKPluginCancelled: Ctrl+C while a pluginsdk plugin in wasm waits
// for an answer reaches it as a cancel; it exits 130 on its own.
func TestWasmSDKPluginCancelled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mustMkdir(t, e.paths.CacheDir())
	if err := os.Symlink(wasmCache, e.paths.WasmCacheDir()); err != nil {
		t.Fatal(err)
	}
	m := "[plugin]\nname = \"fledge-plugin-sdk\"\nversion = \"1.0.0\"\nprotocol = \"fledge-v1\"\nruntime = \"wasm\"\n" +
		"\n[[commands]]\nname = \"sdk\"\nbinary = \"sdkplugin.wasm\"\n"
	e.install(plugin{name: "fledge-plugin-sdk", protocol: "fledge-v1", commands: map[string]string{"sdk": "sdkplugin.wasm"},
		copies: map[string]string{"sdkplugin.wasm": sdkWasm}, manifest: m})
	e.ui.answers = []any{block{}}
	r := e.patient() // the plugin exits on its own; nothing may overtake it
	r.Interactive = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for !e.ui.wasAsked() {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	res, err := runBounded(t, r, ctx, Request{Command: "sdk"})
	if CodeOf(err) != CodeInterrupted || res.ExitCode != 130 || res.Signaled {
		t.Fatalf("err %v, exit %d (signaled %v), want interrupted and the plugin's own 130", err, res.ExitCode, res.Signaled)
	}
}

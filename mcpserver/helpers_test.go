package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/mcpserver"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/runner/wasmengine"
)

// Built once by TestMain.
var (
	goPlugin  string // the runner's Go test plugin
	fledgeBin string // the fledge command, for the stdio and HTTP tests
)

func TestMain(m *testing.M) {
	// The tests wait on plugin processes far more than they compute.
	if err := testutil.WaitingTests(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "fledge-mcp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goPlugin = filepath.Join(dir, "goplugin")
	fledgeBin = filepath.Join(dir, "fledge")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, b := range [][2]string{{goPlugin, "../runner/testdata/goplugin"}, {fledgeBin, "../cmd/fledge"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = testutil.BuildGo(b[0], b[1])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	scratchDone := testutil.Scratch()
	code := m.Run()
	scratchDone()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is a FLEDGE_HOME with plugins installed straight into it, a project
// directory to run in, and the server's log.
type env struct {
	t       *testing.T
	root    string
	paths   home.Paths
	project string
	log     *testutil.SyncBuffer
	// wrap, when set, runs fledge through this command line (setpriv).
	wrap []string
}

// sourcesSeen makes go test see the sources of the binaries TestMain
// builds: it caches this package's results on its own dependencies and the
// files its tests look at (only once m.Run has begun), so looking at them
// makes any change to them run these tests again.
var sourcesSeen = sync.OnceFunc(func() {
	for _, pattern := range []string{"../cmd/fledge/*.go", "../cmd/internal/cli/*.go", "../runner/testdata/goplugin/*.go"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			_, _ = os.Stat(f)
		}
	}
})

func newEnv(t *testing.T) *env {
	t.Helper()
	sourcesSeen()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	paths, err := home.New(filepath.Join(root, "fledge"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, root: root, paths: paths, project: filepath.Join(root, "project"), log: &testutil.SyncBuffer{}}
	for _, d := range []string{e.project, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// command is one [[commands]] entry of a test plugin.
type command struct {
	name, binary, description string
	args                      []manifest.Arg
	dangerous                 bool
	output, outputSchema      string
}

// plugin is a plugin to install straight into FLEDGE_HOME, as install
// leaves it.
type plugin struct {
	name     string
	protocol string // "" or fledge-v1
	runtime  string // "" (native) or wasm
	commands []command
	files    map[string]string // path → content; "#!" makes it executable
	copies   map[string]string // path → file to copy, executable
	grants   manifest.Capabilities
}

func (e *env) install(p plugin) string {
	e.t.Helper()
	dir := e.paths.PluginDir(p.name)
	var b strings.Builder
	fmt.Fprintf(&b, "[plugin]\nname = %q\nversion = \"1.0.0\"\n", p.name)
	if p.protocol != "" {
		fmt.Fprintf(&b, "protocol = %q\n", p.protocol)
	}
	if p.runtime != "" {
		fmt.Fprintf(&b, "runtime = %q\n", p.runtime)
	}
	var names []string
	for _, c := range p.commands {
		names = append(names, c.name)
		fmt.Fprintf(&b, "\n[[commands]]\nname = %q\nbinary = %q\n", c.name, c.binary)
	}
	fmt.Fprintf(&b, "\n[capabilities]\nexec = %v\nstore = %v\nmetadata = %v\n", p.grants.Exec, p.grants.Store, p.grants.Metadata)
	write := func(path, data string, mode os.FileMode) {
		testutil.WriteFile(e.t, filepath.Join(dir, filepath.FromSlash(path)), []byte(data), mode)
	}
	write(manifest.FileName, b.String(), 0o644)
	for path, data := range p.files {
		mode := os.FileMode(0o644)
		if strings.HasPrefix(data, "#!") {
			mode = 0o755
		}
		write(path, data, mode)
	}
	for path, src := range p.copies {
		data, err := os.ReadFile(src)
		if err != nil {
			e.t.Fatal(err)
		}
		write(path, string(data), 0o755)
	}
	var details []manifest.Command
	for _, c := range p.commands {
		details = append(details, manifest.Command{Name: c.name, Description: c.description, Binary: c.binary, Args: c.args, Dangerous: c.dangerous,
			Output: c.output, OutputSchema: c.outputSchema})
	}
	err := lockfile.NewStore(e.paths.PluginsFile(), e.paths.PluginsLock()).Update(func(f *lockfile.File) error {
		f.Put(lockfile.Plugin{
			Name: p.name, Source: "/src/" + p.name, Version: "1.0.0", Installed: "2026-01-01T00:00:00Z",
			Commands: names, CommandDetails: details, Capabilities: p.grants, Requested: p.grants,
			Kind: lockfile.KindLocalCopy, Protocol: p.protocol, Runtime: p.runtime,
		})
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return dir
}

// installGo installs the Go test plugin: its first argument picks what it
// does (echo, exec, sleep, wait-cancel, ...).
func (e *env) installGo(name, cmd string, grants manifest.Capabilities, args ...manifest.Arg) string {
	return e.install(plugin{name: name, protocol: manifest.ProtocolV1, grants: grants,
		commands: []command{{name: cmd, binary: "bin/goplugin", args: args, description: "the Go test plugin"}},
		copies:   map[string]string{"bin/goplugin": goPlugin}})
}

// installScript installs one of the runner's testdata plugin scripts.
func (e *env) installScript(name, cmd, script string, grants manifest.Capabilities) string {
	return e.install(plugin{name: name, protocol: manifest.ProtocolV1, grants: grants,
		commands: []command{{name: cmd, binary: "bin/" + script}},
		copies:   map[string]string{"bin/" + script: filepath.Join("..", "runner", "testdata", "plugins", script)}})
}

// options are the server options of the tests: the project as the working
// directory, a short signal schedule, a fast poll.
func (e *env) options() mcpserver.Options {
	return mcpserver.Options{
		Paths: e.paths, Version: "9.9.9-test", Log: e.log, Poll: 20 * time.Millisecond,
		Runner: runner.Runner{
			Environ: func() []string {
				return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(e.root, "home"), "LANG=C"}
			},
			Getwd:    func() (string, error) { return e.project, nil },
			UserHome: filepath.Join(e.root, "home"),
			Wasm:     wasmengine.Engine{},
			Timeouts: runner.Timeouts{Interrupt: 200 * time.Millisecond, Term: 500 * time.Millisecond, Kill: time.Second,
				TimeoutTerm: 500 * time.Millisecond, TimeoutKill: time.Second, ExitGrace: 100 * time.Millisecond},
		},
	}
}

// patientTimeouts are the options' signal schedule with every signal an
// hour away, for a test whose plugin stops on its own: however slowly a
// busy machine runs it, no signal overtakes it.
var patientTimeouts = runner.Timeouts{Interrupt: time.Hour, Term: time.Hour, Kill: time.Hour,
	TimeoutTerm: time.Hour, TimeoutKill: time.Hour, ExitGrace: 100 * time.Millisecond}

func (e *env) server(mod func(*mcpserver.Options)) *mcpserver.Server {
	e.t.Helper()
	o := e.options()
	if mod != nil {
		mod(&o)
	}
	s, err := mcpserver.New(o)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// connect runs s over in-memory transports and connects a go-sdk client
// with opts; both end with the test.
func connect(t *testing.T, s *mcpserver.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case <-served:
		case <-time.After(20 * time.Second):
			t.Error("the server did not stop within 20 s")
		}
	})
	return cs
}

// call calls a tool, failing the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, meta mcp.Meta) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// text is a result's text content, joined.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// errorCode is a result's fledge error code ("" when none).
func errorCode(res *mcp.CallToolResult) string {
	s, _ := res.Meta[mcpserver.MetaErrorCode].(string)
	return s
}

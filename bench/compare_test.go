//go:build bench

package bench

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ---- this tree against another revision (bench/compare.sh) ----

// baseTree is a source tree of another revision of fledge (bench/compare.sh
// unpacks one); the Compare benchmarks measure its fledge and its pluginsdk
// against this tree's, on the message paths.
var baseTree = flag.String("base", "", "source tree of the revision to compare with (BenchmarkCompare)")

// The base revision's fledge and sdkbench plugin, built by TestMain from
// baseTree.
var baseFledge, baseSDKNative, baseSDKWasm string

// baseBuilds are the go build invocations TestMain adds for baseTree.
func baseBuilds() [][]string {
	if *baseTree == "" {
		return nil
	}
	baseFledge = filepath.Join(tmpRoot, "fledge-base")
	baseSDKNative = filepath.Join(tmpRoot, "sdkbench-base")
	baseSDKWasm = filepath.Join(tmpRoot, "sdkbench-base.wasm")
	return [][]string{
		append(append([]string{"-C", *baseTree}, releaseFlags...), "-o", baseFledge, "./cmd/fledge"),
		{"-C", *baseTree, "-o", baseSDKNative, "./bench/testdata/sdkbench"},
		{"GOOS=wasip1", "GOARCH=wasm", "-C", *baseTree, "-o", baseSDKWasm, "./bench/testdata/sdkbench"},
	}
}

// side is one revision: its fledge and the commands its plugins are
// installed as.
type side struct {
	name   string
	fledge string
	sdk    string // the sdkbench plugin built native from the same tree
	sdkW   string // and for wasm
}

// compareEnv installs the runner's goplugin as "gp" and each side's
// sdkbench plugin as "sb-<side>" (native) and "sw-<side>" (wasm) in one
// FLEDGE_HOME, which both fledges share.
func compareEnv(b *testing.B) (*env, []side) {
	b.Helper()
	if *baseTree == "" {
		b.Skip("no -base tree: run bench/compare.sh REV")
	}
	e := goEnv(b)
	sides := []side{
		{name: "base", fledge: baseFledge, sdk: baseSDKNative, sdkW: baseSDKWasm},
		{name: "head", fledge: fledgeBin, sdk: sdkBenchNative, sdkW: sdkBenchWasm},
	}
	for _, s := range sides {
		installBinary(b, e, "sb-"+s.name, s.sdk, false)
		installBinary(b, e, "sw-"+s.name, s.sdkW, true)
	}
	return e, sides
}

// installBinary installs a one-command plugin named cmd running bin.
func installBinary(b *testing.B, e *env, cmd, bin string, wasm bool) {
	b.Helper()
	src := filepath.Join(e.root, cmd)
	file, runtime := "bin/plugin", ""
	if wasm {
		file, runtime = "plugin.wasm", "runtime = \"wasm\"\n"
	}
	m := "[plugin]\nname = \"fledge-plugin-" + cmd + "\"\nversion = \"0.1.0\"\nprotocol = \"fledge-v1\"\n" + runtime +
		"\n[[commands]]\nname = \"" + cmd + "\"\nbinary = \"" + file + "\"\n"
	if err := os.MkdirAll(filepath.Join(src, "bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "plugin.toml"), []byte(m), 0o644); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(file)), data, 0o755); err != nil {
		b.Fatal(err)
	}
	run(b, e.cmd(fledgeBin, "plugins", "install", "--copy", "--yes", src))
}

// timing is one side's wall-clock and CPU times (fledge and its plugin,
// user and system), in milliseconds, one entry per run.
type timing struct{ wall, cpu []float64 }

// report prints each side's medians: ms-<side> (wall) and cpu-ms-<side>.
// The sides run alternately, so a machine whose load drifts slows both
// alike; medians, because a stray slow run moves a mean.
func report(b *testing.B, t map[string]*timing) {
	for name, s := range t {
		b.ReportMetric(median(s.wall), "ms-"+name)
		b.ReportMetric(median(s.cpu), "cpu-ms-"+name)
	}
}

// BenchmarkCompare: `fledge <command>` streaming output messages, each
// side's fledge with each side's plugin:
//   - stream: the runner's goplugin writing 1M pre-encoded 64-byte output
//     messages (the host's decoding alone);
//   - sdk-stream: the pluginsdk plugin writing 1M through IO.Output, built
//     native (the SDK's encoding and the host's decoding);
//   - wasm-stream: the same plugin in the wasm sandbox, 100k messages (the
//     SDK in wasm, the sandbox's stdio and the host).
func BenchmarkCompare(b *testing.B) {
	for _, c := range []struct {
		name string
		args func(s side) []string
	}{
		{"stream", func(side) []string { return []string{"gp", "flood", "1000000", "64"} }},
		{"sdk-stream", func(s side) []string { return []string{"sb-" + s.name, "flood", "1000000", "64"} }},
		{"wasm-stream", func(s side) []string { return []string{"sw-" + s.name, "flood", "100000", "64"} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			e, sides := compareEnv(b)
			t := map[string]*timing{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, s := range sides {
					start := time.Now()
					st := run(b, e.cmd(s.fledge, c.args(s)...))
					if t[s.name] == nil {
						t[s.name] = &timing{}
					}
					t[s.name].wall = append(t[s.name].wall, float64(time.Since(start))/1e6)
					t[s.name].cpu = append(t[s.name].cpu, float64(st.UserTime()+st.SystemTime())/1e6)
				}
			}
			report(b, t)
		})
	}
}

// BenchmarkCompareMCP: a tools/call to each side's running `fledge mcp`
// whose plugin prints 100k 64-byte output messages (the goplugin, and
// the pluginsdk plugin built from the same tree), which the server
// captures and returns as the call's text. CPU is the server's and its
// plugins', from /proc.
func BenchmarkCompareMCP(b *testing.B) {
	for _, c := range []struct {
		name string
		tool func(s side) string
	}{
		{"stream", func(side) string { return "gp" }},
		{"sdk-stream", func(s side) string { return "sb-" + s.name }},
	} {
		b.Run(c.name, func(b *testing.B) {
			e, sides := compareEnv(b)
			sessions := map[string]*mcp.ClientSession{}
			pids := map[string]int{}
			for _, s := range sides {
				cmd := e.cmd(s.fledge, "mcp")
				var stderr strings.Builder
				cmd.Stderr = &stderr
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
					&mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
				if err != nil {
					b.Fatalf("%s: %v\n%s", s.name, err, stderr.String())
				}
				defer cs.Close()
				sessions[s.name], pids[s.name] = cs, cmd.Process.Pid
			}
			args := map[string]any{"args": []string{"flood", "100000", "64"}}
			t := map[string]*timing{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, s := range sides {
					cpu0 := procCPU(b, pids[s.name])
					start := time.Now()
					res, err := sessions[s.name].CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool(s), Arguments: args})
					if err != nil || res.IsError || len(res.Content) == 0 {
						b.Fatalf("%s: call: %v %+v", s.name, err, res)
					}
					if n := len(res.Content[0].(*mcp.TextContent).Text); n != 100000*64 {
						b.Fatalf("%s: the call returned %d bytes of output, want %d", s.name, n, 100000*64)
					}
					if t[s.name] == nil {
						t[s.name] = &timing{}
					}
					t[s.name].wall = append(t[s.name].wall, float64(time.Since(start))/1e6)
					t[s.name].cpu = append(t[s.name].cpu, procCPU(b, pids[s.name])-cpu0)
				}
			}
			report(b, t)
		})
	}
}

// procCPU is the CPU time of process pid and its reaped children (user
// and system), in milliseconds, from /proc/pid/stat.
func procCPU(b *testing.B, pid int) float64 {
	b.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name (which may hold spaces) in
	// parentheses; utime, stime, cutime, cstime are fields 14-17.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ticks := 0.0
	for _, s := range f[11:15] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("/proc/%d/stat: %q", pid, data)
		}
		ticks += v
	}
	return ticks * 1000 / clockTicks
}

// clockTicks is USER_HZ, the unit of /proc/pid/stat's times: 100 on every
// Linux architecture Go supports.
const clockTicks = 100

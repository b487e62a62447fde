//go:build bench

package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// sdkBenchNative and sdkBenchWasm are testdata/sdkbench built both ways by
// TestMain.
var sdkBenchNative, sdkBenchWasm string

// wasmDriver is the runner's scripted wasm test plugin, which sends
// pre-encoded output as the runner's goplugin flood writes it.
var wasmDriver string

// wasmBuilds are the go build invocations TestMain adds for these figures.
func wasmBuilds() [][]string {
	sdkBenchNative = filepath.Join(tmpRoot, "sdkbench")
	sdkBenchWasm = filepath.Join(tmpRoot, "sdkbench.wasm")
	wasmDriver = filepath.Join(tmpRoot, "driver.wasm")
	return [][]string{
		{"GOOS=wasip1", "GOARCH=wasm", "-o", wasmDriver, "../runner/testdata/wasmdriver"},
		{"-o", sdkBenchNative, "./testdata/sdkbench"},
		{"GOOS=wasip1", "GOARCH=wasm", "-o", sdkBenchWasm, "./testdata/sdkbench"},
	}
}

// rustBench builds testdata/rustbench with Debian's rustc for wasm32-wasi,
// once; "" when that toolchain is missing.
var rustBench = sync.OnceValue(func() string {
	out := filepath.Join(tmpRoot, "rustbench.wasm")
	for _, target := range []string{"wasm32-wasip1", "wasm32-wasi"} {
		cmd := exec.Command("/usr/bin/rustc", "--edition", "2021", "--target", target, "-C", "opt-level=s", "-C", "strip=symbols",
			"-o", out, filepath.Join("testdata", "rustbench", "main.rs"))
		if cmd.Run() == nil {
			return out
		}
	}
	return ""
})

// sdkEnv installs a plugin as command "sb": the sdkbench plugin as a wasm
// plugin (install compiles it into the cache) or built native, or the
// Rust-built one.
func sdkEnv(b *testing.B, kind string) *env {
	b.Helper()
	return sdkEnvOf(b, kind, fledgeBin, sdkBenchWasm)
}

// sdkEnvOf is sdkEnv for the fledge binary fledge, with wasm as the
// sdkbench plugin's wasm build.
func sdkEnvOf(b *testing.B, kind, fledge, wasm string) *env {
	b.Helper()
	e := newEnv(b)
	src := filepath.Join(e.root, "sb")
	bin, runtime, from := "bin/sdkbench", "", sdkBenchNative
	switch kind {
	case "wasm":
		bin, runtime, from = "sdkbench.wasm", "runtime = \"wasm\"\n", wasm
	case "wasm-rust":
		if from = rustBench(); from == "" {
			b.Skip("no /usr/bin/rustc with a wasm32-wasi target (apt-get install rustc libstd-rust-dev-wasm32)")
		}
		bin, runtime = "rustbench.wasm", "runtime = \"wasm\"\n"
	}
	m := "[plugin]\nname = \"fledge-plugin-sb\"\nversion = \"0.1.0\"\nprotocol = \"fledge-v1\"\n" + runtime +
		"\n[[commands]]\nname = \"sb\"\nbinary = \"" + bin + "\"\n"
	if err := os.MkdirAll(filepath.Join(src, "bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "plugin.toml"), []byte(m), 0o644); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(from)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(bin)), data, 0o755); err != nil {
		b.Fatal(err)
	}
	run(b, e.cmd(fledge, "plugins", "install", "--copy", "--yes", src))
	return e
}

// BenchmarkWasmCommand: `fledge sb` (one output, exit) for the pluginsdk
// plugin in the wasm sandbox, with the compilation cache warm (install
// filled it); native is the same code built as a process.
func BenchmarkWasmCommand(b *testing.B) {
	for _, kind := range []string{"native", "wasm", "wasm-rust"} {
		b.Run(kind, func(b *testing.B) {
			e := sdkEnv(b, kind)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run(b, e.cmd(fledgeBin, "sb"))
			}
		})
	}
}

// BenchmarkWasmCommandCold: `fledge sb` with the compilation cache emptied
// before every run: the first run after an upgrade of wazero, or of a
// module installed by another fledge.
func BenchmarkWasmCommandCold(b *testing.B) {
	e := sdkEnv(b, "wasm")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.RemoveAll(e.paths.WasmCacheDir()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		run(b, e.cmd(fledgeBin, "sb"))
	}
}

// BenchmarkWasmHostStream: `fledge drive output:1000000:64`, a wasm plugin
// sending pre-encoded 64-byte output messages through fledge.send, against
// BenchmarkStreamFledge's native plugin writing the same messages: what the
// sandbox's host costs, without the guest's own encoding.
func BenchmarkWasmHostStream(b *testing.B) {
	const n = 1000000
	e := newEnv(b)
	src := filepath.Join(e.root, "drv")
	m := "[plugin]\nname = \"fledge-plugin-drv\"\nversion = \"0.1.0\"\nprotocol = \"fledge-v1\"\nruntime = \"wasm\"\n\n[[commands]]\nname = \"drive\"\nbinary = \"driver.wasm\"\n"
	if err := os.MkdirAll(src, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "plugin.toml"), []byte(m), 0o644); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(wasmDriver)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "driver.wasm"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	run(b, e.cmd(fledgeBin, "plugins", "install", "--copy", "--yes", src))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(b, e.cmd(fledgeBin, "drive", "output:"+strconv.Itoa(n)+":64"))
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkWasmStream: `fledge sb flood 100000 64`, in the sandbox and
// native.
func BenchmarkWasmStream(b *testing.B) {
	const n = 100000
	for _, kind := range []string{"native", "wasm"} {
		b.Run(kind, func(b *testing.B) {
			e := sdkEnv(b, kind)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run(b, e.cmd(fledgeBin, "sb", "flood", strconv.Itoa(n), "64"))
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkWasmStart: `fledge sb` (one output, exit), every figure in the
// same rounds, one run of each per round in turn, so that a machine whose
// load drifts slows them alike (bench/wasm.sh prints the ratios):
//   - native: the pluginsdk plugin built as a process;
//   - wasm: the same code in the wasm sandbox, the compilation cache warm;
//   - cold: the same with the cache emptied before the run (the compile);
//   - rust: the Rust-built module, cache warm (when rustc can build it);
//   - wasm-base, cold-base: with -base, the base revision's fledge and its
//     sdkbench build, in a FLEDGE_HOME of their own.
//
// Each figure is the median wall-clock time (ms-<figure>) and CPU time,
// user and system, of fledge and the processes it waited for: a native
// plugin's are counted (cpu-ms-<figure>).
func BenchmarkWasmStart(b *testing.B) {
	type figure struct {
		name   string
		fledge string
		e      *env
		cold   bool
	}
	wasm := sdkEnv(b, "wasm")
	figs := []figure{
		{"native", fledgeBin, sdkEnv(b, "native"), false},
		{"wasm", fledgeBin, wasm, false},
		{"cold", fledgeBin, wasm, true},
	}
	if rustBench() != "" {
		figs = append(figs, figure{"rust", fledgeBin, sdkEnv(b, "wasm-rust"), false})
	}
	if *baseTree != "" {
		base := sdkEnvOf(b, "wasm", baseFledge, baseSDKWasm)
		figs = append(figs, figure{"wasm-base", baseFledge, base, false}, figure{"cold-base", baseFledge, base, true})
	}
	t := map[string]*timing{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range figs {
			if f.cold {
				b.StopTimer()
				if err := os.RemoveAll(f.e.paths.WasmCacheDir()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			start := time.Now()
			st := run(b, f.e.cmd(f.fledge, "sb"))
			if t[f.name] == nil {
				t[f.name] = &timing{}
			}
			t[f.name].wall = append(t[f.name].wall, float64(time.Since(start))/1e6)
			t[f.name].cpu = append(t[f.name].cpu, float64(st.UserTime()+st.SystemTime())/1e6)
		}
	}
	report(b, t)
}

package runner

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
)

// buildRustPlugin builds testdata/rustplugin with rustc for wasm32-wasi
// (Debian's rustc and libstd-rust-dev-wasm32, which .ci/run installs).
// Without that toolchain the test is skipped locally but fails in CI, so
// compatibility with Rust-built modules is never silently unchecked there.
// The module is kept between runs (testutil.CachedFile), named by rustc's
// version, the flags and the source.
func buildRustPlugin(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "rustplugin", "main.rs")
	source, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	// rustup's rustc usually comes first on PATH but lacks the wasm target
	// offline; Debian's is at /usr/bin/rustc.
	for _, rustc := range []string{"/usr/bin/rustc", "rustc"} {
		version, err := exec.Command(rustc, "--version", "--verbose").Output()
		if err != nil {
			errs = append(errs, rustc+": "+err.Error())
			continue
		}
		for _, target := range []string{"wasm32-wasip1", "wasm32-wasi"} {
			args := []string{"--edition", "2021", "--target", target, "-C", "opt-level=s", "-C", "strip=symbols"}
			module, err := testutil.CachedFile("rust", t.TempDir(), [][]byte{version, []byte(strings.Join(args, "\x00")), source}, func(out string) error {
				cmd := exec.Command(rustc, append(args, "-o", out, src)...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					return errors.New(firstLines(stderr.String(), err))
				}
				return nil
			})
			if err == nil {
				return module
			}
			errs = append(errs, rustc+" --target "+target+": "+err.Error())
		}
	}
	msg := "no rustc with a wasm32-wasi target (apt-get install rustc libstd-rust-dev-wasm32):\n" + strings.Join(errs, "\n")
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func firstLines(s string, err error) string {
	if s = strings.TrimSpace(s); s == "" {
		return err.Error()
	}
	if lines := strings.SplitN(s, "\n", 3); len(lines) > 2 {
		return strings.Join(lines[:2], " ")
	}
	return s
}

// TestWasmRustBuiltModule runs a module built by rustc against the host
// ABI the real Rust-built plugins use, granted and denied.
func TestWasmRustBuiltModule(t *testing.T) {
	t.Parallel()
	module := buildRustPlugin(t)
	for _, tc := range []struct {
		name   string
		grants manifest.Capabilities
		want   []string
	}{
		{"granted", manifest.Capabilities{Exec: true, Store: true, Metadata: true, Filesystem: "project"}, []string{
			"init: ok\n",
			`store_get: "hello world"` + "\n",
			"store_get missing: null\n",
			`exec: {"code":0,"stdout":"rust-exec\n","stderr":""}` + "\n",
			`metadata: {"git_tags":`,
			`prompt: {"type":"response","id":"p1","value":"rusty"}` + "\n",
			"recv idle: 0\n",
			"println: shown as output\n",
			"fs: rust data\n",
			"fs write: blocked\n",
			"network: blocked\n",
			"spawn: blocked\n",
			"env: 0\n",
		}},
		{"denied", manifest.Capabilities{}, []string{
			"init: ok\n",
			"store_get: null\n",
			`exec: {"code":126,`,
			"metadata: {}\n",
			"fs: blocked\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, filepath.Join(e.project, "data.txt"), "rust data\n", 0o644)
			m := "[plugin]\nname = \"test-rust\"\nversion = \"0.1.0\"\nprotocol = \"fledge-v1\"\nruntime = \"wasm\"\n" +
				"\n[[commands]]\nname = \"test-rust\"\nbinary = \"target/wasm32-wasip1/release/test-rust.wasm\"\n"
			e.install(plugin{name: "test-rust", protocol: "fledge-v1", commands: map[string]string{"test-rust": "x"},
				copies: map[string]string{"target/wasm32-wasip1/release/test-rust.wasm": module}, grants: tc.grants, requests: tc.grants, manifest: m})
			res, err := e.run(Request{Command: "test-rust", NonInteractive: true, Capture: true})
			// Exiting non-zero after a denial is reported as such.
			if wantCode := map[bool]string{true: "", false: CodeCapabilityNotAllowed}[tc.grants.Exec]; CodeOf(err) != wantCode {
				t.Fatalf("run: %v (code %q), want %q\n%s", err, CodeOf(err), wantCode, e.stderr)
			}
			if res.ExitCode != 3 {
				t.Errorf("exit code %d, want 3", res.ExitCode)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, res.Output)
				}
			}
			if _, err := os.Stat(filepath.Join(e.project, "new.txt")); err == nil {
				t.Error("the plugin wrote into the project")
			}
		})
	}
}

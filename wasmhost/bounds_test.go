package wasmhost

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
)

// blocks returns n blocks, nested or one after the other, around inner.
func blocks(n int, nested bool, inner []byte) []byte {
	if nested {
		b := bytes.Repeat([]byte{tu.OpBlock, 0x40}, n)
		b = append(b, inner...)
		return append(b, bytes.Repeat([]byte{tu.OpEnd}, n)...)
	}
	return append(bytes.Repeat([]byte{tu.OpBlock, 0x40, tu.OpEnd}, n), inner...)
}

// Modules that took minutes or gigabytes to compile are refused before
// compiling, naming the bound and where it is passed; the same shapes
// within the bounds compile.
func TestCompileBombsAreRefused(t *testing.T) {
	t.Parallel()
	small := []byte{tu.OpI32Const, 1, tu.OpDrop}
	for _, tc := range []struct {
		name  string
		mod   tu.WasmModule
		words string
	}{
		{"100k nested blocks", tu.WasmModule{Start: blocks(100_000, true, nil)}, "function 0 has 100000 blocks"},
		{"blocks one after another", tu.WasmModule{Start: blocks(Bounds.Blocks+1, false, nil)}, "blocks"},
		{"50M locals", tu.WasmModule{StartLocals: 50_000_000}, "function 0 has 50000000 locals"},
		{"locals live across loops", tu.WasmModule{StartLocals: 1000, Start: blocks(5000, true, []byte{tu.OpLocalGet, 0, tu.OpDrop})}, "locals times blocks"},
		{"a 3M-instruction function", tu.WasmModule{Start: bytes.Repeat(small, 1_000_000)}, "function 0 has 3000002 bytes of code"},
		{"a bomb after the first function", tu.WasmModule{Funcs: [][]byte{small, blocks(100_000, true, nil)}}, "function 2 has"},
		{"many functions", tu.WasmModule{Funcs: func() [][]byte {
			fs := make([][]byte, Bounds.Functions)
			for i := range fs {
				fs[i] = small
			}
			return fs
		}()}, "the module has 200001 functions"},
		{"an instruction the scan does not know", tu.WasmModule{Start: []byte{0xfe, 0x00}}, "instruction 0xfe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.mod.MemPages = 1
			err := Check(context.Background(), tc.mod.Bytes(), "")
			var me *ModuleError
			if !errors.As(err, &me) || !strings.Contains(me.Msg, tc.words) {
				t.Fatalf("err = %v, want a ModuleError saying %q", err, tc.words)
			}
			if strings.Contains(tc.words, "instruction") == me.Bound {
				t.Errorf("Bound = %v for %q", me.Bound, me.Msg)
			}
		})
	}
	for _, ok := range []tu.WasmModule{
		{Start: blocks(2000, true, nil)},
		{Start: blocks(2000, false, nil)},
		{StartLocals: 1000, Start: blocks(100, true, []byte{tu.OpLocalGet, 0, tu.OpDrop})},
	} {
		ok.MemPages = 1
		if err := Check(context.Background(), ok.Bytes(), ""); err != nil {
			t.Errorf("a module within the bounds is refused: %v", err)
		}
	}
}

// A compilation that runs past CompileTimeout is stopped and refused.
func TestCompileTimeout(t *testing.T) {
	old := CompileTimeout
	CompileTimeout = 1
	defer func() { CompileTimeout = old }()
	mod := tu.WasmModule{MemPages: 1, Funcs: [][]byte{blocks(1000, false, nil), blocks(1000, false, nil)}}
	var me *ModuleError
	if err := Check(context.Background(), mod.Bytes(), ""); !errors.As(err, &me) || !me.Bound || !strings.Contains(me.Msg, "took more than") {
		t.Fatalf("err = %v, want the compile timeout", err)
	}
}

// realModules are wasm plugins as compilers build them: Go (wasip1), and
// the Rust (cargo-wasi), Zig and TinyGo modules wazero ships as test data.
func realModules(t *testing.T) map[string][]byte {
	t.Helper()
	mods := map[string][]byte{}
	hello := filepath.Join(t.TempDir(), "hello.wasm")
	if err := tu.BuildGo(hello, "../examples/fledge-plugin-hello", "GOOS=wasip1", "GOARCH=wasm"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/tetratelabs/wazero").Output()
	if err != nil {
		t.Fatalf("go list wazero: %v", err)
	}
	testdata := filepath.Join(strings.TrimSpace(string(out)), "imports", "wasi_snapshot_preview1", "testdata")
	for name, path := range map[string]string{
		"go":   hello,
		"rust": filepath.Join(testdata, "cargo-wasi", "wasi.wasm"),
		"zig":  filepath.Join(testdata, "zig-cc", "wasi.wasm"),
		"tiny": filepath.Join(testdata, "tinygo", "wasi.wasm"),
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mods[name] = b
	}
	return mods
}

// Every bound is at least ten times the largest measure of real modules,
// which all compile.
func TestBoundsAboveRealModules(t *testing.T) {
	t.Parallel()
	for name, mod := range realModules(t) {
		st, err := scanModule(mod)
		if err != nil {
			t.Fatalf("%s: scan: %v", name, err)
		}
		t.Logf("%s: %+v", name, st)
		for _, m := range []struct {
			what       string
			got, bound int
		}{
			{"functions", st.Functions, Bounds.Functions},
			{"code size", st.CodeSize, Bounds.CodeSize},
			{"function size", st.FunctionSize[0], Bounds.FunctionSize},
			{"locals", st.Locals[0], Bounds.Locals},
			{"blocks", st.Blocks[0], Bounds.Blocks},
			{"locals times blocks", st.LocalsByBlocks[0], Bounds.LocalsByBlocks},
		} {
			if m.got*10 > m.bound {
				t.Errorf("%s: %s %d is within ten times the bound %d", name, m.what, m.got, m.bound)
			}
		}
		if err := Check(context.Background(), mod, ""); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	tu "github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
)

func wasmPlugin(module []byte) map[string]string {
	return map[string]string{
		"plugin.toml": "[plugin]\nname = \"fledge-plugin-hello\"\nversion = \"1.0.0\"\nprotocol = \"fledge-v1\"\nruntime = \"wasm\"\n\n" +
			"[[commands]]\nname = \"hello\"\nbinary = \"plugin.wasm\"\n",
		"plugin.wasm": string(module),
	}
}

func TestInstallChecksWasmModules(t *testing.T) {
	t.Parallel()
	send := tu.WasmImport{Module: "fledge", Name: "send", Params: []byte{tu.I32, tu.I32}}
	good := tu.WasmModule{Imports: []tu.WasmImport{send}, MemPages: 1}.Bytes()
	foreign := tu.WasmModule{Imports: []tu.WasmImport{send, {Module: "env", Name: "system", Params: []byte{tu.I32}}}, MemPages: 1}.Bytes()

	e := newEnv(t)
	src := t.TempDir()
	testutil.WriteTree(t, src, wasmPlugin(foreign))
	in := e.installer(Consent{})
	in.Copy = true
	_, err := in.Install(context.Background(), src)
	var inv *manifest.InvalidError
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), "env.system") {
		t.Fatalf("a module importing env.system was not refused naming it: %v", err)
	}
	if _, ok := e.entry(t, "fledge-plugin-hello"); ok {
		t.Fatal("the refused plugin was recorded")
	}

	// A good module installs, is not required to be executable, and is
	// compiled into the cache, so its first run starts warm.
	testutil.WriteTree(t, src, wasmPlugin(good))
	if err := os.Chmod(filepath.Join(src, "plugin.wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := in.Install(context.Background(), src)
	if err != nil {
		t.Fatalf("Install: %v\n%s", err, e.log)
	}
	if res.Entry.Runtime != "wasm" {
		t.Errorf("runtime not recorded: %+v", res.Entry)
	}
	entries, _ := filepath.Glob(filepath.Join(e.paths.WasmCacheDir(), "*", "*", "*"))
	if len(entries) == 0 {
		t.Error("install left the compilation cache empty")
	}
}

// A compile bomb is refused at install, before compiling, with the field,
// the bound and the fix.
func TestInstallRefusesCompileBombs(t *testing.T) {
	t.Parallel()
	nested := append(bytes.Repeat([]byte{tu.OpBlock, 0x40}, 100_000), bytes.Repeat([]byte{tu.OpEnd}, 100_000)...)
	bomb := tu.WasmModule{MemPages: 1, Start: nested}.Bytes()
	e := newEnv(t)
	src := t.TempDir()
	testutil.WriteTree(t, src, wasmPlugin(bomb))
	in := e.installer(Consent{})
	in.Copy = true
	_, err := in.Install(context.Background(), src)
	var inv *manifest.InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("the bomb was not refused as invalid: %v", err)
	}
	for _, want := range []string{"commands[0] (hello).binary", "100000 blocks", "rebuild the module"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %v", want, err)
		}
	}
}

package runner

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
)

// A compile bomb that reaches a run (installed before the bounds, or with
// a cold cache) is refused before compiling, as launch_failed.
func TestWasmRunRefusesCompileBombs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bomb := filepath.Join(e.dir, "bomb.wasm")
	locals := tu.WasmModule{MemPages: 1, StartLocals: 50_000_000}.Bytes()
	nested := tu.WasmModule{MemPages: 1, Start: append(bytes.Repeat([]byte{tu.OpBlock, 0x40}, 100_000), bytes.Repeat([]byte{tu.OpEnd}, 100_000)...)}.Bytes()
	for name, module := range map[string][]byte{"locals": locals, "nested": nested} {
		writeFile(t, bomb, string(module), 0o644)
		m := "[plugin]\nname = \"fledge-plugin-bomb\"\nversion = \"1.0.0\"\nprotocol = \"fledge-v1\"\nruntime = \"wasm\"\n" +
			"\n[[commands]]\nname = \"bomb\"\nbinary = \"bomb.wasm\"\n"
		e.install(plugin{name: "fledge-plugin-bomb", protocol: "fledge-v1", commands: map[string]string{"bomb": "bomb.wasm"},
			copies: map[string]string{"bomb.wasm": bomb}, grants: manifest.Capabilities{}, manifest: m})
		_, err := e.runWith(e.runner(), Request{Command: "bomb", Capture: true})
		if CodeOf(err) != CodeLaunchFailed || !strings.Contains(err.Error(), "too large to compile safely") {
			t.Errorf("%s: err = %v, want launch_failed: too large to compile", name, err)
		}
	}
}

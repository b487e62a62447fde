package install

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/wasmhost"
)

// CheckWasm reports, for a wasm plugin, each command module fledge could
// not run: it must compile, export memory and _start, and import only
// fledge's host functions and WASI preview 1. A missing module is left to
// CheckBinaries. Compiling through cacheDir ("" for none) fills the
// compilation cache, so the first run starts warm.
func CheckWasm(ctx context.Context, m *manifest.Manifest, dir, cacheDir string) manifest.Problems {
	if !m.IsWasm() {
		return nil
	}
	var ps manifest.Problems
	for i, c := range m.Commands {
		field := fmt.Sprintf("commands[%d] (%s).binary", i, c.Name)
		path := filepath.Join(dir, filepath.FromSlash(c.Binary))
		if manifest.CheckBinaryPath(c.Binary) != "" {
			continue
		}
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		module, err := wasmhost.ReadModule(path)
		if err == nil {
			err = wasmhost.Check(ctx, module, cacheDir)
		}
		if err == nil {
			continue
		}
		p := manifest.Problem{Severity: manifest.SeverityError, Field: field,
			Message: fmt.Sprintf("%q is not a wasm module fledge can run: %v", c.Binary, err)}
		var me *wasmhost.ModuleError
		switch {
		case errors.As(err, &me) && me.Bound:
			p.Fix = "compilers emit nothing near these bounds: rebuild the module from its source, and split any generated function that is this large"
		case errors.As(err, &me) && me.Import != "":
			p.Fix = "build it for wasm32-wasip1 (Rust) or GOOS=wasip1 GOARCH=wasm (Go), importing only fledge's send, recv, exit, exec, store_set, store_get and metadata"
		case errors.As(err, &me):
			p.Fix = "build it as a WASI command (wasm32-wasip1, or GOOS=wasip1 GOARCH=wasm)"
		}
		ps = append(ps, p)
	}
	return ps
}

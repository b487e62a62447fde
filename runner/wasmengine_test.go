package runner_test

import (
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/runner/wasmengine"
	"github.com/corvidlabs/fledge-go/wasmhost"
)

// The runner's own tests run wasm plugins with fledge's engine, which
// imports the runner: only a test file outside the package can hand it in.
func init() {
	runner.UseTestWasm(func(lim wasmhost.Limits) runner.WasmEngine { return wasmengine.Engine{Limits: lim} })
}

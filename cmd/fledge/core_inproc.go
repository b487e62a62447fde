//go:build !(fledge_split && unix)

package main

import (
	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/runner/wasmengine"
)

// core is the command line, in this process.
func core() fastrun.Core {
	return fastrun.Core{
		Main: func(args []string) int { return cli.Main(args, cli.System(), fastrun.Version(version)) },
		Report: func(res *runner.Result, err error) int {
			return cli.ReportRun(res, err, cli.System(), fastrun.Version(version))
		},
		// This binary links the command line's wasm engine anyway: a wasm
		// plugin runs here as a native one does.
		Wasm: wasmengine.Engine{},
	}
}

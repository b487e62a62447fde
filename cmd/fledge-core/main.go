// Command fledge-core is fledge's command line: every command. The
// fledge_split build of fledge (release builds, on unix) runs a plugin
// command itself and hands every other command to fledge-core, installed
// beside it; run directly, fledge-core is a whole fledge.
package main

import (
	"fmt"
	"os"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
)

// version is stamped at release time, as fledge's is.
var version = "dev"

func main() {
	args := os.Args[1:]
	if len(args) == 2 && args[0] == fastrun.OutcomeWord {
		// A run fledge started and hands over to end (fastrun.Core.Report).
		res, runErr, err := fastrun.DecodeOutcome(args[1])
		if err != nil {
			fmt.Fprintf(os.Stderr, "error: %v\nhint: install fledge again: fledge and fledge-core must come from one release\n", err)
			os.Exit(1)
		}
		os.Exit(cli.ReportRun(res, runErr, cli.System(), fastrun.Version(version)))
	}
	os.Exit(cli.Main(args, cli.System(), fastrun.Version(version)))
}

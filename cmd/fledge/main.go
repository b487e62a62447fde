// Command fledge installs, audits and runs fledge plugins.
package main

import (
	"github.com/corvidlabs/fledge-go/confine"
	"os"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
)

// version is stamped at release time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	// A plugin is started through fledge itself, which confines itself and
	// execs it: that process is not the CLI (see package confine).
	if confine.IsTrampoline(os.Args) {
		os.Exit(confine.Trampoline(os.Args, os.Stderr))
	}
	os.Exit(cli.Main(os.Args[1:], cli.System(), version))
}

// Command fledge installs, audits and runs fledge plugins.
//
// A plugin command run for a script or an agent is fastrun's; the rest is
// the command line's (core_inproc.go). In the fledge_split build (release
// builds, on unix), this binary is fastrun alone and the command line is
// fledge-core, beside it (core_exec.go): a plugin command then starts
// without the libraries only other commands use.
package main

import (
	"os"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
)

// version is stamped at release time with -ldflags "-X main.version=…";
// unstamped, fledge reports the module version from the build info.
var version = "dev"

func main() {
	os.Exit(fastrun.Main(os.Args[1:], version, core()))
}

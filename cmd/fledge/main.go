// Command fledge installs, audits and runs fledge plugins.
package main

import (
	"os"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
)

// version is stamped at release time with -ldflags "-X main.version=…";
// unstamped, fledge reports the module version from the build info.
var version = "dev"

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.System(), cli.Version(version)))
}

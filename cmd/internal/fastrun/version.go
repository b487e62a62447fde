package fastrun

import (
	"runtime/debug"
	"strings"
)

// Version is the version fledge reports: the one stamped at release
// (-ldflags "-X main.version=…"), else the module version the go command
// recorded in the binary (a `go install …@v1.2.3` build), else "dev".
func Version(stamped string) string {
	bi, ok := debug.ReadBuildInfo()
	return versionFrom(stamped, bi, ok)
}

func versionFrom(stamped string, bi *debug.BuildInfo, ok bool) string {
	if stamped != "" && stamped != "dev" {
		return stamped
	}
	if ok && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return "dev"
}

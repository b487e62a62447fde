//go:build !linux

package confine

import "runtime"

func landlockABI() (int, string) {
	return 0, "plugins are confined on Linux only, not on " + runtime.GOOS
}

func signalScopeFixed() bool { return false }

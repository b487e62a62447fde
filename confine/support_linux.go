package confine

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// landlockABI is the kernel's Landlock ABI version, asked once: it cannot
// change while fledge runs, and Detect and every compile need it.
var landlockABI = sync.OnceValues(askLandlockABI)

// askLandlockABI asks the kernel for its Landlock ABI version.
func askLandlockABI() (int, string) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == 0:
		return int(v), ""
	case errors.Is(errno, unix.ENOSYS):
		return 0, "the kernel was built without Landlock"
	case errors.Is(errno, unix.EOPNOTSUPP):
		return 0, "Landlock is turned off at boot (add landlock to the lsm= kernel parameter)"
	}
	return 0, "Landlock: " + errno.Error()
}

// signalScopeFixed reports whether the kernel has Landlock's erratum 2
// (ABI 6 signal scoping also refused signals between threads of one
// process): go-landlock scopes nothing on a kernel without it, since a
// restricted thread of fledge must still signal its siblings (the Go
// runtime preempts them so).
var signalScopeFixed = sync.OnceValue(func() bool {
	errata, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
	return errno == 0 && errata&2 != 0
})

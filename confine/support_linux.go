package confine

import (
	"errors"

	"golang.org/x/sys/unix"
)

// landlockABI asks the kernel for its Landlock ABI version.
func landlockABI() (int, string) {
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
func signalScopeFixed() bool {
	errata, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
	return errno == 0 && errata&2 != 0
}

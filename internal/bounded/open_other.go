//go:build !windows

package bounded

import "syscall"

// nonBlock makes opening a named pipe or a terminal return at once.
const nonBlock = syscall.O_NONBLOCK

// noFollow makes opening a symlink fail.
const noFollow = syscall.O_NOFOLLOW

//go:build unix

package wasmhost

import "syscall"

// oNonblock opens a FIFO without waiting for its other end.
const oNonblock = syscall.O_NONBLOCK

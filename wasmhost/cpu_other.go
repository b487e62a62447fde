//go:build !linux

package wasmhost

import "time"

// threadCPUClock is not available here: the meter counts running time.
func threadCPUClock() (func() (time.Duration, bool), bool) { return nil, false }

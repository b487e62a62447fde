package wasmhost

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPUClock returns a reader of the CPU time the calling thread uses
// from now on, that any goroutine may call: Linux names a thread's CPU clock
// by its id (as glibc's pthread_getcpuclockid does: CPUCLOCK_SCHED |
// CPUCLOCK_PERTHREAD_MASK).
func threadCPUClock() (func() (time.Duration, bool), bool) {
	tid := unix.Gettid()
	clock := int32(^uint32(tid)<<3) | 6
	total := func() (time.Duration, bool) {
		var ts unix.Timespec
		if unix.ClockGettime(clock, &ts) != nil {
			return 0, false
		}
		return time.Duration(ts.Nano()), true
	}
	base, ok := total() // a reused thread has run other goroutines before
	return func() (time.Duration, bool) {
		d, ok := total()
		return d - base, ok
	}, ok
}

package wasmhost

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ownCPU is the CPU time the calling thread has used, read by itself.
func ownCPU(t *testing.T) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		t.Error(err)
		return time.Hour // ends the spin
	}
	return time.Duration(ts.Nano())
}

// TestThreadCPUClock: the clock read from another goroutine counts the
// locked thread's work, not its sleep. The thread spins until its own CPU
// clock (CLOCK_THREAD_CPUTIME_ID, read by itself) says it has worked
// 50 ms, however long a busy machine takes to give it that much.
func TestThreadCPUClock(t *testing.T) {
	type clock = func() (time.Duration, bool)
	got := make(chan clock)
	phase := make(chan string)
	done := make(chan time.Duration)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c, ok := threadCPUClock()
		if !ok {
			t.Error("no thread CPU clock on Linux")
			close(got)
			return
		}
		got <- c
		for p := range phase {
			var worked time.Duration
			switch p {
			case "spin":
				start := ownCPU(t)
				for worked < 50*time.Millisecond {
					worked = ownCPU(t) - start
				}
			case "sleep":
				time.Sleep(300 * time.Millisecond)
			}
			done <- worked
		}
	}()
	c, ok := <-got
	if !ok {
		return
	}
	read := func() time.Duration { d, _ := c(); return d }
	phase <- "sleep"
	<-done
	if d := read(); d > 100*time.Millisecond {
		t.Errorf("sleeping used %v of CPU", d)
	}
	before := read()
	phase <- "spin"
	worked := <-done
	if d := read() - before; d < worked {
		t.Errorf("%v of spinning counted as %v", worked, d)
	}
	close(phase)
}

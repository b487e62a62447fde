package wasmhost

import (
	"runtime"
	"testing"
	"time"
)

// TestThreadCPUClock: the clock read from another goroutine counts the
// locked thread's work, not its sleep.
func TestThreadCPUClock(t *testing.T) {
	type clock = func() (time.Duration, bool)
	got := make(chan clock)
	phase := make(chan string)
	done := make(chan struct{})
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
			switch p {
			case "spin":
				for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); {
				}
			case "sleep":
				time.Sleep(300 * time.Millisecond)
			}
			done <- struct{}{}
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
	<-done
	if d := read() - before; d < 20*time.Millisecond {
		t.Errorf("200 ms of spinning counted as %v", d)
	}
	close(phase)
}

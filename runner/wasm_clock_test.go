package runner

import (
	"sync"
	"testing"
	"time"
)

// fakeTimer is a clock and the one timer a runClock sets on it: time
// moves only when the test advances it.
type fakeTimer struct {
	mu   sync.Mutex
	now  time.Time
	at   time.Time // when the timer fires; zero while stopped
	fire func()
}

func (c *fakeTimer) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeTimer) afterFunc(d time.Duration, f func()) clockTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fire, c.at = f, c.now.Add(d)
	return c
}

func (c *fakeTimer) Stop() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	active := !c.at.IsZero()
	c.at = time.Time{}
	return active
}

func (c *fakeTimer) Reset(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	active := !c.at.IsZero()
	c.at = c.now.Add(d)
	return active
}

// advance moves the clock on by d, firing the timer if it is due.
func (c *fakeTimer) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	due := !c.at.IsZero() && !c.now.Before(c.at)
	if due {
		c.at = time.Time{}
	}
	c.mu.Unlock()
	if due {
		c.fire()
	}
}

// A wasm run's clock counts running time only: a question waiting (one,
// or several at once) stops it, however long it waits, and the run is
// timed out once its whole budget has run.
func TestRunClock(t *testing.T) {
	t.Parallel()
	ft := &fakeTimer{now: time.Unix(1e9, 0)}
	fired := 0
	c := newRunClock(5*time.Second, func() { fired++ }, ft.Now, ft.afterFunc)
	step := func(d time.Duration, want int, what string) {
		t.Helper()
		ft.advance(d)
		if fired != want {
			t.Fatalf("%s: fired %d times, want %d", what, fired, want)
		}
	}
	step(2*time.Second, 0, "2 s of the 5 s run")
	c.pause()
	step(time.Hour, 0, "an hour's question")
	c.resume()
	step(2900*time.Millisecond, 0, "4.9 s of running")
	c.pause()
	c.pause() // two questions at once
	c.resume()
	step(time.Hour, 0, "while the second question still waits")
	c.resume()
	step(99*time.Millisecond, 0, "4.999 s of running")
	step(time.Millisecond, 1, "5 s of running")
	c.pause()
	c.resume()
	step(time.Hour, 1, "after it fired")
	c.stop()
}

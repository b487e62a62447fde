package wasmhost

import (
	"testing"
	"time"
)

// TestMeterCountsOnlyRunning: nested waits stop the clock until the last
// one ends.
func TestMeterCountsOnlyRunning(t *testing.T) {
	now := time.Unix(0, 0)
	m := &meter{now: func() time.Time { return now }}
	m.since = now
	step := func(d time.Duration) { now = now.Add(d) }
	step(3 * time.Second) // running: 3 s
	outer := m.wait()
	step(10 * time.Second) // waiting
	inner := m.wait()
	step(5 * time.Second)
	inner()
	step(5 * time.Second) // still inside the outer wait
	if got := m.Used(); got != 3*time.Second {
		t.Fatalf("used %v while waiting, want 3s", got)
	}
	outer()
	step(2 * time.Second) // running again
	if got := m.Used(); got != 5*time.Second {
		t.Fatalf("used %v, want 5s", got)
	}
}

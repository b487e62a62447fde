package testutil

import (
	"testing"
	"time"
)

// WaitLimit bounds a test's wait for something the code under test does:
// a process to print a line, a file to appear, a run to end. It is not a
// budget the work must meet, only the point where a wait that would hang
// fails the test with a message instead of running into go test's
// -timeout: long enough for a machine loaded many times over.
const WaitLimit = 2 * time.Minute

// Eventually polls cond until it holds, and fails tb, naming what it
// waited for, if it does not within WaitLimit.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %v for %s", WaitLimit, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Receive waits for a value on ch, and fails tb, naming what it waited
// for, if none comes within WaitLimit.
func Receive[T any](tb testing.TB, what string, ch <-chan T) T {
	tb.Helper()
	t := time.NewTimer(WaitLimit)
	defer t.Stop()
	select {
	case v := <-ch:
		return v
	case <-t.C:
		tb.Fatalf("waited %v for %s", WaitLimit, what)
		var zero T
		return zero
	}
}

//go:build !unix

package confine

// takeHeld takes no directory in turn where there is no flock: every run
// gets one of its own.
func takeHeld(string) *Temp { return nil }

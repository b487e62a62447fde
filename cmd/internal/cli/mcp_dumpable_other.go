//go:build !linux && !fledge_nomcp

package cli

// keepStreamsFromChildren has nothing to do here: no /proc/<pid>/fd lets
// a child open its parent's pipes.
func keepStreamsFromChildren() error { return nil }

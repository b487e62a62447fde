//go:build !fledge_nomcp

package cli

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// keepStreamsFromChildren makes the server's /proc/<pid>/fd unopenable by
// the plugins it runs: without it, a plugin of the same user opens
// /proc/$PPID/fd/N and writes into the protocol's pipes, forging results
// to the client and requests to the server. A process that is not
// dumpable can be inspected only with CAP_SYS_PTRACE. Plugins are not
// affected: exec makes them dumpable again.
func keepStreamsFromChildren() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("keep the protocol stream from plugins: %w", err)
	}
	return nil
}

//go:build unix && !fledge_nomcp

package cli

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// protocolStdout keeps the MCP stream to itself when it is the process's
// own stdout: the protocol gets a copy of file descriptor 1, and 1 then
// points at stderr, so whatever else writes to stdout (or inherits it) can
// only reach the server's log, never corrupt the protocol; and no plugin
// can reopen the stream's pipes through /proc (keepStreamsFromChildren).
// restore undoes the first.
func protocolStdout(w io.Writer) (io.Writer, func(), error) {
	if err := keepStreamsFromChildren(); err != nil {
		return nil, nil, err
	}
	f, ok := w.(*os.File)
	if !ok || f.Fd() != 1 {
		return w, func() {}, nil
	}
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, nil, fmt.Errorf("keep stdout for the protocol: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("keep stdout for the protocol: %w", err)
	}
	out := os.NewFile(uintptr(fd), "mcp")
	return out, func() {
		_ = unix.Dup2(fd, 1)
		out.Close()
	}, nil
}

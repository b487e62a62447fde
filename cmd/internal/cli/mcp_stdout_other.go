//go:build !unix && !fledge_nomcp

package cli

import "io"

// protocolStdout is w itself here: the runner never lets a plugin write
// to fledge's stdout (every call's output is captured), which is what
// keeps the protocol clean on every platform; on Unix, file descriptor 1
// is also moved aside.
func protocolStdout(w io.Writer) (io.Writer, func(), error) { return w, func() {}, nil }

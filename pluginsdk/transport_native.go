//go:build !wasip1

package pluginsdk

import "os"

// newTransport connects over stdin and stdout.
func newTransport() *IO {
	p := NewIO(os.Stdin, os.Stdout)
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		p.tty = true
	}
	return p
}

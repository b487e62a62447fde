//go:build bench && unix

package bench

import (
	"os"
	"syscall"
)

// minflt is the minor page faults of a finished process (its own, as
// wait4 reports them).
func minflt(st *os.ProcessState) float64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Minflt)
	}
	return 0
}

//go:build bench && !unix

package bench

import "os"

// minflt: this system reports no page faults for a process.
func minflt(*os.ProcessState) float64 { return 0 }

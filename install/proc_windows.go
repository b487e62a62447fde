//go:build windows

package install

import (
	"os"
	"os/exec"
	"syscall"
)

func setpgid(cmd *exec.Cmd) {}

func killProcessGroup(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// processAlive cannot be told cheaply here: assume it is, so nothing a
// running fledge uses is removed.
func processAlive(pid int) bool { return true }

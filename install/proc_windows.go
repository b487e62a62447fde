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

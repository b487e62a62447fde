//go:build !linux

package confine

import (
	"errors"
	"os/exec"
)

// Start starts cmd; with a profile it refuses, since plugins are confined
// on Linux only (the runner asks only where Detect says the kernel can).
func Start(cmd *exec.Cmd, p *Profile) error {
	if p != nil {
		return errors.New("plugins are confined on Linux only")
	}
	return cmd.Start()
}

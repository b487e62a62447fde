//go:build windows

package runner

import (
	"os"
	"os/exec"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// signalProcess stops the child: Windows has no SIGTERM to send.
func signalProcess(p *process, kill bool) {
	if !p.done() {
		_ = p.cmd.Process.Kill()
	}
}

func interruptProcess(p *process) {
	if !p.done() {
		_ = p.cmd.Process.Kill()
	}
}

func exitStatus(st *os.ProcessState) (code int, signaled bool, ok bool) {
	return st.ExitCode(), false, true
}

func shellCommand(command string) (string, []string) {
	return "cmd", []string{"/C", command}
}

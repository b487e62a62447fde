//go:build unix

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
	cmd.SysProcAttr.Setpgid = true
}

// signalProcess sends SIGTERM (or SIGKILL) to the child's whole process
// group when it has one (reaching grandchildren that outlived it), else to
// the child alone while it runs.
func signalProcess(p *process, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if p.group {
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
		return
	}
	if !p.done() {
		_ = p.cmd.Process.Signal(sig)
	}
}

// interruptProcess sends SIGINT, the signal a terminal's Ctrl+C sends.
func interruptProcess(p *process) {
	if p.group {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT)
		return
	}
	if !p.done() {
		_ = p.cmd.Process.Signal(os.Interrupt)
	}
}

func exitStatus(st *os.ProcessState) (code int, signaled bool, ok bool) {
	if ws, isWS := st.Sys().(syscall.WaitStatus); isWS && ws.Signaled() {
		return 128 + int(ws.Signal()), true, true
	}
	return st.ExitCode(), false, true
}

func shellCommand(command string) (string, []string) {
	return "/bin/sh", []string{"-c", command}
}

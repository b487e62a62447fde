//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

func isolate(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

var unixSignals = [...]syscall.Signal{Interrupt: syscall.SIGINT, Terminate: syscall.SIGTERM, Kill: syscall.SIGKILL}

func send(p *os.Process, sig Signal, group bool) error {
	s := unixSignals[sig]
	if group {
		return syscall.Kill(-p.Pid, s)
	}
	return p.Signal(s)
}

func alive(p *os.Process) bool { return syscall.Kill(-p.Pid, 0) == nil }

func shell(command string) (string, []string) { return "sh", []string{"-c", command} }

func exitCode(st *os.ProcessState) (int, bool) {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), true
	}
	return st.ExitCode(), false
}

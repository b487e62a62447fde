//go:build windows

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
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// send ends p: Windows has no SIGINT or SIGTERM to send another process,
// nor a way to signal a group.
func send(p *os.Process, _ Signal, _ bool) error { return p.Kill() }

// alive cannot ask a Windows group, whose signals end its leader alone:
// the leader's exit is the group's.
func alive(*os.Process) bool { return false }

func shell(command string) (string, []string) { return "cmd", []string{"/C", command} }

func exitCode(st *os.ProcessState) (int, bool) { return st.ExitCode(), false }

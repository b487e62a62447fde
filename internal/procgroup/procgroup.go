package procgroup

import (
	"os"
	"os/exec"
)

// Signal is what Send delivers.
type Signal int

// The signals: a terminal's Ctrl+C, a polite request to stop, and the end.
const (
	Interrupt Signal = iota // SIGINT
	Terminate               // SIGTERM
	Kill                    // SIGKILL
)

// Isolate makes cmd, when started, lead a process group of its own. It
// keeps any other SysProcAttr setting cmd has.
func Isolate(cmd *exec.Cmd) { isolate(cmd) }

// KillOnCancel makes the cancellation of an exec.CommandContext command
// kill its whole group, not the command alone. cmd must be Isolated.
func KillOnCancel(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return Send(cmd.Process, Kill, true)
	}
}

// Send delivers sig to the group p leads when group is set (p must have
// been started Isolated), else to p alone. A group is signalled even when
// its leader has exited, to reach what it left running.
func Send(p *os.Process, sig Signal, group bool) error { return send(p, sig, group) }

// Alive reports whether the group p leads (p must have been started
// Isolated) still has a process in it, its leader or what the leader left
// running. A process that has exited and not yet been reaped counts.
func Alive(p *os.Process) bool { return alive(p) }

// Shell returns the program and arguments that run command through the
// platform's shell, as the Rust fledge does: sh -c on Unix, cmd /C on
// Windows.
func Shell(command string) (string, []string) { return shell(command) }

// ExitCode is a finished process's exit code: its own, or 128+n when
// signal n ended it (as a shell reports it), with signaled set.
func ExitCode(st *os.ProcessState) (code int, signaled bool) { return exitCode(st) }

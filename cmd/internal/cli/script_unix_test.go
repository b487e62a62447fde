//go:build unix

package cli_test

import (
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// signalpid INT|TERM|KILL PIDFILE: signal the process whose pid PIDFILE holds.
func cmdSignalPID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: signalpid INT|TERM|KILL PIDFILE")
	}
	sig, ok := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL}[args[0]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[0])
	}
	ts.Check(syscall.Kill(readPID(ts, args[1]), sig))
}

// pidgone PIDFILE: wait (bounded) until the process whose pid PIDFILE holds
// no longer exists.
func cmdPIDGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pidgone PIDFILE")
	}
	pid := readPID(ts, args[0])
	deadline := time.Now().Add(scriptWait)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			ts.Fatalf("process %d is still running after %v", pid, scriptWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

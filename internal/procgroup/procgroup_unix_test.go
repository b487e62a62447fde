//go:build unix

package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startWithChild starts a shell that leaves a background sleep behind and
// returns the command and the sleep's pid.
func startWithChild(t *testing.T, ctx context.Context, isolate bool) (*exec.Cmd, int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	name, args := Shell("sleep 60 & echo $! > " + pidFile + "; wait")
	cmd := exec.CommandContext(ctx, name, args...)
	if isolate {
		Isolate(cmd)
		KillOnCancel(cmd)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(pidFile)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			return cmd, pid
		}
		if time.Now().After(deadline) {
			t.Fatal("the shell never started its child")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func gone(pid int) bool {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return true
		}
		// A killed child of the shell is a zombie until the shell (or
		// init, once the shell is gone) reaps it: signal 0 still finds it.
		if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(data), ") Z ") {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// Cancelling the context kills what the command started, not just the
// command (exec.Cmd alone would leave the sleep running).
func TestKillOnCancelKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd, child := startWithChild(t, ctx, true)
	cancel()
	_ = cmd.Wait()
	if !gone(child) {
		t.Fatal("the command's child outlived the cancellation")
	}
}

// Send reaches the group after its leader has exited.
func TestSendReachesTheGroupAfterTheLeaderExits(t *testing.T) {
	cmd, child := startWithChild(t, context.Background(), true)
	if err := Send(cmd.Process, Kill, false); err != nil {
		t.Fatal(err)
	}
	st, _ := cmd.Process.Wait()
	if code, signaled := ExitCode(st); code != 128+int(syscall.SIGKILL) || !signaled {
		t.Fatalf("exit code %d (signaled %v), want %d", code, signaled, 128+int(syscall.SIGKILL))
	}
	if err := syscall.Kill(child, 0); err != nil {
		t.Fatalf("killing the leader alone ended its child too (%v): the test proves nothing", err)
	}
	if err := Send(cmd.Process, Terminate, true); err != nil {
		t.Fatal(err)
	}
	if !gone(child) {
		t.Fatal("the group's remaining process outlived SIGTERM to the group")
	}
}

func TestIsolateKeepsOtherAttributes(t *testing.T) {
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: false, Noctty: true}
	Isolate(cmd)
	if !cmd.SysProcAttr.Setpgid || !cmd.SysProcAttr.Noctty {
		t.Fatalf("SysProcAttr = %+v", cmd.SysProcAttr)
	}
}

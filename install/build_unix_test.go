//go:build unix

package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Cancelling the context kills the hook's whole process group: a
// grandchild that would otherwise outlive it (and hold its pipes) is gone.
func TestRunHookCancelKillsGroup(t *testing.T) {
	unixOnly(t)
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	cmd := `sleep 300 & echo $! > grandchild.pid.tmp && mv grandchild.pid.tmp grandchild.pid; echo started; wait`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- testInstaller(t).runHook(ctx, "build", cmd, dir, os.Environ(), nil) }()

	var pid int
	for deadline := time.Now().Add(30 * time.Second); ; {
		data, err := os.ReadFile(pidFile)
		if err == nil {
			pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("hook never wrote its grandchild's pid")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !alive(pid) {
		t.Fatalf("grandchild %d not running before cancel", pid)
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("runHook did not return after cancel")
	}
	var he *HookError
	if !errors.As(err, &he) || !errors.Is(err, context.Canceled) {
		t.Errorf("runHook = %v, want a HookError wrapping context.Canceled", err)
	}
	for deadline := time.Now().Add(10 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("grandchild %d survived the cancelled hook", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && runtime.GOOS != "linux"
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// A hook that succeeds but leaves a background process holding its
// stdout/stderr (a post_install that starts a server with `&`, a build
// tool's daemon that keeps stderr) does not fail the install, as it does
// not with the Rust fledge, which inherits stdio.
func TestHookLeavingDaemonSucceeds(t *testing.T) {
	t.Parallel()
	unixOnly(t)
	dir := t.TempDir()
	t.Cleanup(func() {
		if data, err := os.ReadFile(filepath.Join(dir, "daemon.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	var out bytes.Buffer
	err := testInstaller(t).runHook(context.Background(), "post_install", "sleep 60 & echo $! > daemon.pid; echo started", dir, os.Environ(), &out)
	if err != nil {
		t.Errorf("runHook = %v, want success (the hook exited 0)", err)
	}
	if !strings.Contains(out.String(), "started") {
		t.Errorf("output %q", out.String())
	}
}

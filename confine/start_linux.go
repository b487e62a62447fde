package confine

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// Start starts cmd confined to p: cmd and everything it starts run under
// the profile, and fledge does not. With p nil, cmd starts as it is: the
// caller decided it runs unconfined, and said so. Call it where cmd.Start
// would be called; wait for cmd as usual. An error means cmd did not
// start: a command that cannot be confined as decided never runs
// unconfined.
//
// Go runs no code of ours between fork and exec, so the profile is put on
// the thread that forks: a goroutine locks itself to a thread, restricts
// that thread alone (Landlock, no_new_privs and the socket filter are all
// per thread), and calls cmd.Start there; the child inherits all three
// from the forking thread (clone copies the thread's credentials, which
// hold the Landlock domain, its seccomp filter and no_new_privs). The
// goroutine then ends without UnlockOSThread, so the runtime ends the
// thread (runtime.mexit) and the rules die with it. The runtime never
// clones a new thread from a locked one: runtime.newm hands the clone to
// the template thread when m.lockedExt != 0 ("We're on a locked M …
// ask a known-good thread to create the thread for us", proc.go), and
// LockOSThread starts that template thread first, before this thread is
// restricted. So fledge's other threads, and those made later, stay
// unconfined.
func Start(cmd *exec.Cmd, p *Profile) error {
	if p == nil {
		return cmd.Start()
	}
	r, err := compile(*p)
	if err != nil {
		return fmt.Errorf("cannot confine %s: %w", cmd.Path, err)
	}
	defer r.close()
	restore, err := prepare(cmd)
	if err != nil {
		return err
	}
	defer restore()
	res := make(chan error, 1)
	go func() { res <- startOnOwnThread(cmd, r) }()
	return <-res
}

// startOnOwnThread restricts the calling goroutine's thread with r and
// starts cmd from it. The thread is never unlocked: it ends with the
// goroutine.
func startOnOwnThread(cmd *exec.Cmd, r *restriction) error {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread is never ended (runtime.mexit wedges it
		// instead: Linux cannot wait for a process whose main thread
		// has exited), so it would keep the rules. Hold it while
		// another thread does the work, and give it back untouched.
		defer runtime.UnlockOSThread()
		res := make(chan error, 1)
		go func() { res <- startOnOwnThread(cmd, r) }()
		return <-res
	}
	if err := r.restrict(); err != nil {
		return fmt.Errorf("cannot confine %s: %w", cmd.Path, err)
	}
	return cmd.Start()
}

// prepare does, before the thread is restricted, what cmd.Start would
// otherwise do under the profile and could be refused: it opens
// /dev/null for the streams cmd leaves nil, and has package os check once
// for this process whether pidfds work (os.StartProcess asks the first
// time; a check refused under the profile would turn pidfds off for the
// whole process). The rest of cmd.Start needs nothing Landlock or the
// socket filter refuses: exec.Command looked the program up already,
// pipes for other streams are pipe2, os.StartProcess's check of cmd.Dir
// is a stat (which Landlock does not confine), and the fork is what the
// profile is for. restore puts cmd's streams back and closes what it
// opened, once cmd has started (the child holds its own copies).
func prepare(cmd *exec.Cmd) (restore func(), err error) {
	checkPidfd()
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			_ = f.Close()
		}
	}
	null := func(flag int) (*os.File, error) {
		f, err := os.OpenFile(os.DevNull, flag, 0)
		if err == nil {
			opened = append(opened, f)
		}
		return f, err
	}
	stdin, stdout, stderr := cmd.Stdin == nil, cmd.Stdout == nil, cmd.Stderr == nil
	if stdin {
		f, err := null(os.O_RDONLY)
		if err != nil {
			return nil, err
		}
		cmd.Stdin = f
	}
	if stdout || stderr {
		f, err := null(os.O_WRONLY)
		if err != nil {
			closeAll()
			return nil, err
		}
		if stdout {
			cmd.Stdout = f
		}
		if stderr {
			cmd.Stderr = f
		}
	}
	return func() {
		closeAll()
		if stdin {
			cmd.Stdin = nil
		}
		if stdout {
			cmd.Stdout = nil
		}
		if stderr {
			cmd.Stderr = nil
		}
	}, nil
}

// checkPidfd makes package os run its one pidfd check (os.FindProcess
// asks it) on an unrestricted thread.
var checkPidfd = sync.OnceFunc(func() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Release()
	}
})

package confine

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

const (
	readOnly = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSReadDir)
	fileBits = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSReadFile | ll.AccessFSIoctlDev)
)

// Apply confines the calling thread, and everything it execs from now on,
// to p: the trampoline locks its goroutine to its thread, applies the
// profile and execs the plugin from that thread, so only it needs the
// rules (restricting every thread of a Go process, as go-landlock's
// Restrict does before ABI 8, signals each of them and costs milliseconds).
// It leaves the thread unable to undo it (no_new_privs is set, as Landlock
// and seccomp require). Call runtime.LockOSThread first.
//
// Landlock runs best effort: on a kernel whose ABI lacks a right (the
// network before ABI 4, device ioctls before ABI 5) that right is left
// unconfined, exactly as Detect reports it, rather than refusing to run a
// plugin whose files can still be confined. A kernel without Landlock is
// an error here: the runner never starts the trampoline there.
func Apply(p Profile) error {
	cfg := landlock.V7.BestEffort()
	if p.Network {
		cfg = landlock.Config{HandledAccessFS: landlock.V7.HandledAccessFS, Scoped: landlock.V7.Scoped}.BestEffort()
	}
	var rules []landlock.Rule
	add := func(access landlock.AccessFSSet, refer bool, paths []string) {
		for _, path := range paths {
			fi, err := os.Stat(path)
			if err != nil {
				continue // gone since the profile was drawn: nothing to grant
			}
			a := access
			if !fi.IsDir() {
				a &= fileBits
			}
			// A directory another process removes meanwhile is no error.
			r := landlock.PathAccess(a, path).IgnoreIfMissing()
			if refer && fi.IsDir() {
				r = r.WithRefer()
			}
			rules = append(rules, r)
		}
	}
	add(landlock.AccessFSSet(ll.AccessFSExecute)|readOnly, false, p.ReadExec)
	add(readOnly, false, p.Read)
	add(readWrite, true, p.Write)
	add(readWrite|landlock.AccessFSSet(ll.AccessFSIoctlDev), false, p.Devices)
	if abi, _ := landlockABI(); abi < 1 {
		return fmt.Errorf("the kernel has no Landlock")
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd >= 0 {
		defer unix.Close(fd)
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("no_new_privs: %w", err)
		}
		if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), uintptr(flags), 0); errno != 0 {
			return fmt.Errorf("landlock_restrict_self: %w", errno)
		}
	}
	if !p.Network {
		if err := denySockets(); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	}
	return nil
}

// readWrite is every file right of ABI 3 (what go-landlock's RWDirs gives),
// without device ioctls.
const readWrite = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSReadDir |
	ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg |
	ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSTruncate)

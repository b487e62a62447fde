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

// restriction is a profile made ready for the kernel: a Landlock ruleset
// holding its paths, and whether the socket filter goes with it. Making it
// (opening each path) works on any thread and binds none; restrict binds
// the calling thread alone.
type restriction struct {
	fd      int // the ruleset; -1 when Landlock has nothing to handle
	flags   uint32
	sockets bool // load the socket filter (the network is not granted)
}

// compile makes p ready to restrict a thread with.
//
// Landlock runs best effort: on a kernel whose ABI lacks a right (the
// network before ABI 4, device ioctls before ABI 5) that right is left
// unconfined, exactly as Detect reports it, rather than refusing to run a
// plugin whose files can still be confined. A kernel without Landlock is
// an error here: the runner never asks to confine there.
func compile(p Profile) (*restriction, error) {
	if abi, _ := landlockABI(); abi < 1 {
		return nil, fmt.Errorf("the kernel has no Landlock")
	}
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
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return nil, fmt.Errorf("landlock: %w", err)
	}
	return &restriction{fd: fd, flags: flags, sockets: !p.Network}, nil
}

// close releases the ruleset; threads restricted with it stay restricted.
func (r *restriction) close() {
	if r.fd >= 0 {
		_ = unix.Close(r.fd)
	}
}

// restrict confines the calling thread, and every process it starts from
// now on, and leaves it unable to undo that (no_new_privs is set, as
// Landlock and seccomp require). Only this thread: restricting every
// thread of a Go process, as go-landlock's Restrict does before ABI 8,
// signals each of them and costs milliseconds, and would confine fledge
// itself. The caller holds the thread with runtime.LockOSThread and never
// lets it go (see Start).
func (r *restriction) restrict() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if r.fd >= 0 {
		if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(r.fd), uintptr(r.flags), 0); errno != 0 {
			return fmt.Errorf("landlock_restrict_self: %w", errno)
		}
	}
	if r.sockets {
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

package confine

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

const (
	readOnly = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSReadDir)
	fileBits = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSReadFile | ll.AccessFSIoctlDev)
)

// Apply confines the calling process, and everything it starts from now on,
// to p. It is the trampoline's work: it leaves the process unable to undo
// it (no_new_privs is set, as Landlock and seccomp require).
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
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
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

package confine

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

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
	rules   int  // how many rules the ruleset holds
}

// compile makes p ready to restrict a thread with.
//
// Landlock runs best effort: on a kernel whose ABI lacks a right (the
// network before ABI 4, device ioctls before ABI 5, moving files between
// directories before ABI 2) that right is left unconfined, exactly as
// Detect reports it, rather than refusing to run a plugin whose files can
// still be confined. A kernel without Landlock is an error here: the
// runner never asks to confine there.
//
// A path gets one rule, with the rights of every row granting it, and
// none when the rules on the directories above it grant all of those
// already: Landlock allows an access that any rule from the file up to
// the root allows, so such a rule changes nothing (/usr/bin, /bin's
// target and a PATH directory, beneath /usr; the plugin's tree, read and
// executed and, undeclared, written). A run measured here (PATH of 12
// directories, FLEDGE_HOME under ~/.cache) loads 17 rules, not 26, and
// BenchmarkCompile takes 56 µs, not 80 (load 3.5, medians of 7
// interleaved runs).
//
// Each rule costs three system calls (open O_PATH, landlock_add_rule,
// close), and a file's a fourth: a rule with directory rights on a file is
// refused (EINVAL) and added again with file rights, which spares a stat
// per path. An entry of a split directory (Profile.listed) needs no
// fourth: its listing said what it is. go-landlock's rules would do the same work, but would drop the
// whole ruleset on an ABI 1 kernel for a rule asking "refer".
func compile(p Profile) (*restriction, error) {
	abi, _ := landlockABI()
	if abi < 1 {
		return nil, fmt.Errorf("the kernel has no Landlock")
	}
	cfg := landlock.V7.BestEffort()
	if p.Network {
		cfg = landlock.Config{HandledAccessFS: landlock.V7.HandledAccessFS, Scoped: landlock.V7.Scoped}.BestEffort()
	}
	// What the ruleset handles here: the rights the kernel's ABI knows.
	handled := cfg.HandledAccessFS & abiFS[min(abi, len(abiFS))-1]
	fd, flags, err := cfg.NewRulesetFD()
	if err != nil {
		return nil, fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return nil, fmt.Errorf("landlock: the kernel handles none of the profile's rights")
	}
	r := &restriction{fd: fd, flags: flags, sockets: !p.Network}
	rights := map[string]landlock.AccessFSSet{}
	for _, g := range []struct {
		access landlock.AccessFSSet
		paths  []string
	}{
		{landlock.AccessFSSet(ll.AccessFSExecute) | readOnly, p.ReadExec},
		{readOnly, p.Read},
		{readWrite | landlock.AccessFSSet(ll.AccessFSRefer), p.Write},
		{readWrite | landlock.AccessFSSet(ll.AccessFSIoctlDev), p.Devices},
	} {
		for _, path := range g.paths {
			rights[path] |= g.access & handled
		}
	}
	// Sorted, a directory comes before what is beneath it.
	added := make(map[string]landlock.AccessFSSet, len(rights))
	for _, path := range slices.Sorted(maps.Keys(rights)) {
		a := rights[path]
		if a&^above(added, path) == 0 {
			continue
		}
		flags, first := unix.O_PATH|unix.O_CLOEXEC, a
		if kind, ok := p.listed[path]; ok {
			// An entry of a split directory, which was no link:
			// one put in its place since is not followed.
			flags |= unix.O_NOFOLLOW
			if !kind.IsDir() {
				first = a & fileBits
			}
		}
		pfd, err := unix.Open(path, flags, 0)
		if err != nil {
			continue // gone since the profile was drawn: nothing to grant
		}
		err = addRule(fd, pfd, first)
		if errors.Is(err, unix.EINVAL) { // not a directory
			err = addRule(fd, pfd, a&fileBits)
		}
		_ = unix.Close(pfd)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("landlock: grant %s: %w", path, err)
		}
		added[path] = a
		r.rules++
	}
	return r, nil
}

// above is what the rules added on the directories above path grant
// beneath them.
func above(added map[string]landlock.AccessFSSet, path string) landlock.AccessFSSet {
	var a landlock.AccessFSSet
	for d := path; d != "/" && d != "."; {
		d = filepath.Dir(d)
		a |= added[d]
	}
	return a
}

// abiFS are the file rights Landlock's ABI versions 1 to 7 handle.
var abiFS = []landlock.AccessFSSet{landlock.V1.HandledAccessFS, landlock.V2.HandledAccessFS, landlock.V3.HandledAccessFS,
	landlock.V4.HandledAccessFS, landlock.V5.HandledAccessFS, landlock.V6.HandledAccessFS, landlock.V7.HandledAccessFS}

// addRule grants access beneath the file pfd opens (O_PATH); no right
// left (a file's share of directory rights on an old ABI) is no rule.
func addRule(ruleset, pfd int, access landlock.AccessFSSet) error {
	if access == 0 {
		return nil
	}
	return ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{ParentFd: pfd, AllowedAccess: uint64(access)}, 0)
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

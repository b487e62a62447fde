package derived

import (
	"os"
	"strconv"
	"syscall"
)

// executableIdentity names the running executable by its device, inode,
// size and modification and change times, from one stat of
// /proc/self/exe: resolving the link's path first (os.Executable) cost
// every lookup a readlink of procfs, about as much as the rest of the
// key. A rebuilt, upgraded or moved fledge is another file or the same
// one changed; the change time, which no one sets, tells a copy that kept
// the modification time.
func executableIdentity() string { return IdentityOf("/proc/self/exe") }

// IdentityOf names the executable at path as executableIdentity names the
// running one: the same file gives the same name ("" when it cannot be
// read).
func IdentityOf(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	b := []byte("exe")
	for _, n := range []int64{int64(st.Dev), int64(st.Ino), st.Size, st.Mtim.Nano(), st.Ctim.Nano()} {
		b = strconv.AppendInt(append(b, 0), n, 10)
	}
	return string(b)
}

//go:build !linux && !darwin

package derived

import "os"

// statIDs reports false: stamps are used only where the change time is
// known to be kept by the kernel alone (stamp_linux.go, stamp_darwin.go).
func statIDs(os.FileInfo) (dev, ino uint64, ctime int64, ok bool) { return 0, 0, 0, false }

// keepsChangeTimes reports false, as statIDs does.
func keepsChangeTimes(string) bool { return false }

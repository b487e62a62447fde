//go:build !linux

package runner

import "os"

// growPipe leaves the pipe as it is: only Linux lets a pipe grow.
func growPipe(*os.File) {}

// pipeHolds is at most how many bytes the pipe behind f holds unread: its
// largest capacity, where the system has no call to tell (readNow stops
// earlier when it empties).
func pipeHolds(*os.File) int { return 1 << 20 }

//go:build !linux

package pipesize

import "os"

// Grow leaves the pipe as it is: only Linux lets a pipe grow.
func Grow(*os.File, int) {}

// Size is 0: the capacity is not known here.
func Size(*os.File) int { return 0 }

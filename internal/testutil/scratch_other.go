//go:build !linux

package testutil

// Elsewhere the scratch files stay where the system puts them.
func memoryFS(string) bool      { return false }
func roomyMemoryFS(string) bool { return false }

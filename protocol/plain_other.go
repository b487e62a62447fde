//go:build !amd64

package protocol

// indexSpecial returns the index of the first byte of b that is not plain
// (see plain), or len(b).
func indexSpecial(b []byte) int { return skipWords(b, 0) }

package protocol

// indexSpecial returns the index of the first byte of b that is not plain
// (see plain), or len(b). len(b) must be at least 16. It tests sixteen
// bytes at a time with SSE2, which every amd64 processor has: twice as
// fast as eight-byte words on a flood's text (BenchmarkOutputTexts, see
// doc.go).
//
//go:noescape
func indexSpecial(b []byte) int

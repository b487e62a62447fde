package wasmhost

import (
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// limitedAllocator backs a plugin's linear memory and refuses to grow it
// past limit bytes, remembering that it did: wazero's own page limit makes
// memory.grow fail silently, and fledge wants to say which limit a failing
// plugin hit.
type limitedAllocator struct {
	limit uint64
	hit   atomic.Bool
}

func (a *limitedAllocator) Allocate(capacity, _ uint64) experimental.LinearMemory {
	return &limitedMemory{a: a, buf: make([]byte, 0, min(capacity, a.limit))}
}

type limitedMemory struct {
	a   *limitedAllocator
	buf []byte
}

// Reallocate grows the memory to size bytes. Bytes beyond the old length
// are zero: the buffer only ever grows, and new capacity comes from make.
func (m *limitedMemory) Reallocate(size uint64) []byte {
	if size > m.a.limit {
		m.a.hit.Store(true)
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	newCap := min(max(size, 2*uint64(cap(m.buf))), m.a.limit)
	b := make([]byte, size, newCap)
	copy(b, m.buf)
	m.buf = b
	return b
}

func (m *limitedMemory) Free() { m.buf = nil }

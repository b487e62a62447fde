package wasmhost

import (
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// limitedAllocator backs a plugin's linear memory and refuses to grow it
// past limit bytes, remembering that it did: wazero's own page limit makes
// memory.grow fail silently, and fledge wants to say which limit a failing
// plugin hit.
//
// Where it can (reserve, memory_linux.go), the memory is one mapping of
// address space the size of the limit, which the kernel backs with zeroed
// pages as the plugin first touches them: growing it copies nothing and
// the memory never moves, and the plugin's memory is not Go heap, so it
// neither paces fledge's garbage collector nor is scanned by it. Elsewhere
// (or when the mapping is refused) it is a Go slice, copied as it grows.
type limitedAllocator struct {
	limit uint64
	hit   atomic.Bool
}

func (a *limitedAllocator) Allocate(capacity, _ uint64) experimental.LinearMemory {
	if buf, ok := reserve(a.limit); ok {
		return &limitedMemory{a: a, buf: buf[:0], mapped: buf}
	}
	return &limitedMemory{a: a, buf: make([]byte, 0, min(capacity, a.limit))}
}

type limitedMemory struct {
	a   *limitedAllocator
	buf []byte
	// mapped is the whole reservation buf lies in, nil for a Go slice.
	mapped []byte
}

// Reallocate grows the memory to size bytes. Bytes beyond the old length
// are zero: the buffer only ever grows, and new capacity comes from a
// fresh mapping or from make.
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

// Free releases the memory. wazero calls it once the module is closed, on
// the goroutine that ran it (a cancelled module's resources are closed by
// its own goroutine when it stops), and fledge's host functions keep no
// reference to the plugin's memory past the call that passed it; so
// nothing touches the mapping after it is released.
func (m *limitedMemory) Free() {
	if m.mapped != nil {
		release(m.mapped)
	}
	m.buf, m.mapped = nil, nil
}

package wasmhost

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestLimitedMemoryGrows: a linear memory grows to its limit with every
// new byte zero, keeps what was written, and refuses to pass the limit,
// remembering that it did. On Linux it is one mapping that never moves.
func TestLimitedMemoryGrows(t *testing.T) {
	const limit = 64 << 20
	a := &limitedAllocator{limit: limit}
	m := a.Allocate(pageSize, 1<<32).(*limitedMemory)
	defer m.Free()
	if runtime.GOOS == "linux" && m.mapped == nil {
		t.Fatal("the memory is not a mapping on Linux (reserve refused it)")
	}
	b := m.Reallocate(pageSize)
	if len(b) != pageSize {
		t.Fatalf("length %d, want %d", len(b), pageSize)
	}
	b[0], b[pageSize-1] = 1, 2
	first := unsafe.SliceData(b)
	for size := uint64(2 * pageSize); size <= limit; size *= 2 {
		b = m.Reallocate(size)
		if uint64(len(b)) != size {
			t.Fatalf("length %d, want %d", len(b), size)
		}
		if b[0] != 1 || b[pageSize-1] != 2 {
			t.Fatalf("grown to %d bytes, the bytes written before are lost", size)
		}
		for _, at := range []uint64{size / 2, size - 1} {
			if b[at] != 0 {
				t.Fatalf("grown to %d bytes, byte %d is %d, want 0", size, at, b[at])
			}
		}
		b[size-1] = 0 // touched, and still zero for the next check of size/2
		if m.mapped != nil && unsafe.SliceData(b) != first {
			t.Fatalf("grown to %d bytes, the mapped memory moved", size)
		}
	}
	if a.hit.Load() {
		t.Fatal("the limit reads as hit before the memory passed it")
	}
	if m.Reallocate(limit+pageSize) != nil {
		t.Fatal("the memory grew past its limit")
	}
	if !a.hit.Load() {
		t.Fatal("growing past the limit was not remembered")
	}
}

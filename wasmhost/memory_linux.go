package wasmhost

import (
	"math"

	"golang.org/x/sys/unix"
)

// reserve maps n bytes of address space for a linear memory: private,
// anonymous, readable and writable, and not charged against swap until
// touched (MAP_NORESERVE), so a 256 MiB limit costs only the pages the
// plugin uses. ok is false when the kernel refuses the mapping (a strict
// overcommit policy, an address-space limit): the caller then uses Go
// memory.
func reserve(n uint64) ([]byte, bool) {
	if n == 0 || n > math.MaxInt {
		return nil, false
	}
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, false
	}
	return b, true
}

// release unmaps what reserve mapped.
func release(b []byte) { _ = unix.Munmap(b) }

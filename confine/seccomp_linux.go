//go:build linux && (amd64 || arm64)

package confine

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Landlock's ABI 7 confines TCP bind and connect only. When the network is
// not granted, this filter closes what it leaves open: it refuses (EACCES)
// every socket but UNIX, netlink, and plain TCP on IPv4 and IPv6 (which
// Landlock confines) — so no UDP, ICMP, raw, SCTP, MPTCP (which Landlock
// does not see), vsock or anything else — and TCP Fast Open sends, which
// connect without connect(2); io_uring, whose requests seccomp cannot see,
// is refused whole. System calls of another architecture (32-bit ones on
// a 64-bit kernel) are refused, since their numbers mean other calls.
//
// It is written out by hand: elastic/go-seccomp-bpf, the pure Go library
// that assembles such filters, lets a foreign-architecture call take the
// default action, which for a filter that allows by default would let a
// 32-bit socketcall(2) through.
func denySockets() error {
	prog, err := socketProgram()
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	// This thread only: it is the one that starts the plugin (see Start).
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(prog))); errno != 0 {
		return fmt.Errorf("load the socket filter: %w", errno)
	}
	return nil
}

// socketProgram is the filter assembled for the kernel, once per process.
var socketProgram = sync.OnceValues(func() (*unix.SockFprog, error) {
	prog, err := bpf.Assemble(socketFilter())
	if err != nil {
		return nil, err
	}
	filters := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filters[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return &unix.SockFprog{Len: uint16(len(filters)), Filter: &filters[0]}, nil
})

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retDeny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	// Offsets in struct seccomp_data (little-endian: the low half of each
	// argument first).
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

func arg(n uint32) uint32 { return offArg0 + 8*n }

// socketFilter is the program; labels are resolved by skip counts, so
// each block ends in a return.
func socketFilter() []bpf.Instruction {
	arch := uint32(unix.AUDIT_ARCH_X86_64)
	if runtime.GOARCH == "arm64" {
		arch = unix.AUDIT_ARCH_AARCH64
	}
	ret := func(v uint32) bpf.Instruction { return bpf.RetConstant{Val: v} }
	ld := func(off uint32) bpf.Instruction { return bpf.LoadAbsolute{Off: off, Size: 4} }
	var p []bpf.Instruction
	p = append(p,
		ld(offArch),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipTrue: 1},
		ret(retDeny),
		ld(offNr),
	)
	if runtime.GOARCH == "amd64" { // the x32 ABI shares the architecture
		p = append(p, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000, SkipFalse: 1}, ret(retDeny))
	}
	// Dispatch on the call; each case is a block of fixed length below.
	socket := []bpf.Instruction{
		ld(arg(0)),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_UNIX, SkipTrue: 10},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_NETLINK, SkipTrue: 9},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 1},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipFalse: 6},
		ld(arg(1)),
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf}, // SOCK_TYPE_MASK
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipFalse: 3},
		ld(arg(2)),
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.IPPROTO_TCP, SkipTrue: 1},
		ret(retDeny),
		ret(retAllow),
	}
	fastOpen := func(flagsArg uint32) []bpf.Instruction {
		return []bpf.Instruction{
			ld(arg(flagsArg)),
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.MSG_FASTOPEN, SkipFalse: 1},
			ret(retDeny),
			ret(retAllow),
		}
	}
	blocks := [][]bpf.Instruction{socket, fastOpen(3), fastOpen(2), fastOpen(3), {ret(retDeny)}}
	calls := []uint32{unix.SYS_SOCKET, unix.SYS_SENDTO, unix.SYS_SENDMSG, unix.SYS_SENDMMSG, unix.SYS_IO_URING_SETUP}
	// After the dispatch jumps comes ret(allow), then the blocks in order.
	offset := 1 // past ret(allow)
	for i, nr := range calls {
		skip := len(calls) - 1 - i + offset
		p = append(p, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(skip)})
		offset += len(blocks[i])
	}
	p = append(p, ret(retAllow))
	for _, b := range blocks {
		p = append(p, b...)
	}
	return p
}

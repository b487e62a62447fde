package wasmhost

import (
	"errors"
	"fmt"
	"time"
)

// A module is scanned before wazero compiles it, because wazero's
// optimising compiler is bounded by neither time nor memory: its cost grows
// faster than the code in a few measures of one function, and one small
// module could hold a process for minutes or take gigabytes (100,000
// nested blocks in 300 KB compiled for 265 s; 50,000,000 locals declared
// in 55 bytes took 1.3 GB; 1,000 locals live across 5,000 loops, 745 MB).
// The scan reads the code section once, in linear time and constant
// memory, and refuses a module past any bound below. Each sits far above
// what compilers emit: the largest measures of Go (wasip1) and Rust, Zig
// and TinyGo (wasip1) modules are in bounds_test.go, which holds the
// bounds at least 10 times above them. Within them one function costs at
// most about 130 MB and 3 s of CPU to compile (measured at each bound: 10,000
// loops with 60 locals live across them; 6,000 locals across 100 loops).
// What the per-function bounds leave (many functions, each just within
// them) is cut by CompileTimeout: wazero checks it between functions.
var Bounds = struct {
	// Functions is the most functions a module may define.
	Functions int
	// CodeSize is the most bytes of code in all its functions.
	CodeSize int
	// FunctionSize is the most bytes of code in one function.
	FunctionSize int
	// Locals is the most locals one function may declare.
	Locals int
	// Blocks is the most blocks, loops and ifs in one function, nested or
	// not: the compiler's cost grows with their square.
	Blocks int
	// LocalsByBlocks bounds one function's locals times its blocks: each
	// local may need a value at each block's start.
	LocalsByBlocks int
}{
	Functions:      200_000,
	CodeSize:       64 << 20,
	FunctionSize:   1 << 20,
	Locals:         50_000,
	Blocks:         10_000,
	LocalsByBlocks: 600_000,
}

// CompileTimeout bounds the compilation of one module.
var CompileTimeout = 2 * time.Minute

// BoundError says which bound a module is past.
type BoundError struct {
	// Function is the index of the function past it (in the code
	// section), or -1 for the whole module.
	Function int
	What     string
	Got, Max int
}

func (e *BoundError) Error() string {
	where := "the module has"
	if e.Function >= 0 {
		where = fmt.Sprintf("function %d has", e.Function)
	}
	return fmt.Sprintf("%s %d %s, more than the %d fledge will compile", where, e.Got, e.What, e.Max)
}

// errTruncated: the code section ends inside an instruction. wazero's own
// decoder names such problems better; the scan leaves the module to it.
var errTruncated = errors.New("truncated")

// codeStats measures a module's code section: each measure Bounds bounds,
// and the function (index in the code section) where its largest was.
type codeStats struct {
	Functions, CodeSize int
	FunctionSize        [2]int
	Locals              [2]int
	Blocks              [2]int
	LocalsByBlocks      [2]int
}

// checkBounds scans module and returns a *BoundError for the first bound
// it is past, or a *ModuleError for an instruction the scan does not know.
func checkBounds(module []byte) error {
	st, err := scanModule(module)
	if errors.Is(err, errTruncated) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, b := range []struct {
		what     string
		got, max int
		fn       int
	}{
		{"functions", st.Functions, Bounds.Functions, -1},
		{"bytes of code", st.CodeSize, Bounds.CodeSize, -1},
		{"bytes of code", st.FunctionSize[0], Bounds.FunctionSize, st.FunctionSize[1]},
		{"locals", st.Locals[0], Bounds.Locals, st.Locals[1]},
		{"blocks", st.Blocks[0], Bounds.Blocks, st.Blocks[1]},
		{"locals times blocks", st.LocalsByBlocks[0], Bounds.LocalsByBlocks, st.LocalsByBlocks[1]},
	} {
		if b.got > b.max {
			return &BoundError{Function: b.fn, What: b.what, Got: b.got, Max: b.max}
		}
	}
	return nil
}

// scanModule measures module's code section in one pass, in constant
// memory. A malformed module (wazero's to name) reads as errTruncated.
func scanModule(module []byte) (codeStats, error) {
	var st codeStats
	if len(module) < 8 {
		return st, errTruncated
	}
	r := reader{b: module, off: 8}
	for r.off < len(r.b) {
		id, err := r.byte()
		if err != nil {
			return st, err
		}
		size, err := r.u32()
		if err != nil || size > len(r.b)-r.off {
			return st, errTruncated
		}
		if id == sectionCode {
			return st, scanCode(&st, r.b[r.off:r.off+size])
		}
		r.off += size
	}
	return st, nil
}

const sectionCode = 10

func scanCode(st *codeStats, code []byte) error {
	st.CodeSize = len(code)
	r := reader{b: code}
	n, err := r.u32()
	if err != nil {
		return err
	}
	st.Functions = n
	for f := 0; f < n; f++ {
		size, err := r.u32()
		if err != nil || size > len(r.b)-r.off {
			return errTruncated
		}
		note(&st.FunctionSize, size, f)
		if err := scanBody(st, f, reader{b: r.b[r.off : r.off+size]}); err != nil {
			return err
		}
		r.off += size
	}
	return nil
}

func note(m *[2]int, v, f int) {
	if v > m[0] {
		*m = [2]int{v, f}
	}
}

func scanBody(st *codeStats, f int, r reader) error {
	groups, err := r.u32()
	if err != nil {
		return err
	}
	locals := 0
	for range groups {
		c, err := r.u32()
		if err != nil {
			return err
		}
		locals += c
		if _, err := r.byte(); err != nil {
			return err
		}
	}
	note(&st.Locals, locals, f)
	blocks := 0
	defer func() {
		note(&st.Blocks, blocks, f)
		note(&st.LocalsByBlocks, locals*blocks, f)
	}()
	for r.off < len(r.b) {
		op := r.b[r.off]
		r.off++
		var err error
		switch immediates[op] {
		case immNone:
		case immLEB:
			err = r.skipLEB()
		case immLEB2:
			if err = r.skipLEB(); err == nil {
				err = r.skipLEB()
			}
		case immBlock: // block, loop, if, with a block type (s33)
			err = r.skipLEB()
			blocks++
		default:
			err = skipImmediates(op, &r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Kinds of immediates, for the common opcodes (immOther: skipImmediates).
const (
	immOther = iota
	immNone
	immLEB
	immLEB2
	immBlock
)

// immediates classifies each opcode by what follows it, so that the scan
// of a common instruction is one table lookup (the scan of a 5 MB Go
// module stays within milliseconds).
var immediates = func() (t [256]uint8) {
	set := func(kind uint8, ops ...byte) {
		for _, op := range ops {
			t[op] = kind
		}
	}
	set(immNone, 0x00, 0x01, 0x05, 0x0b, 0x0f, 0x1a, 0x1b, 0xd1)
	for op := 0x45; op <= 0xc4; op++ {
		t[op] = immNone
	}
	set(immLEB, 0x0c, 0x0d, 0x10, 0x12, 0xd2, 0x41, 0x42)
	for op := 0x20; op <= 0x26; op++ {
		t[op] = immLEB
	}
	set(immLEB2, 0x11, 0x13)
	for op := 0x28; op <= 0x3e; op++ {
		t[op] = immLEB2 // memarg
	}
	set(immBlock, 0x02, 0x03, 0x04)
	return t
}()

// skipImmediates steps over the immediates of op (any instruction but the
// block starts). An opcode it does not know is refused: the scan
// cannot vouch for what follows it (wazero, as fledge configures it,
// accepts none of them either).
func skipImmediates(op byte, r *reader) error {
	var err error
	switch {
	case op <= 0x01, op == 0x05, op == 0x0b, op == 0x0f, op == 0x1a, op == 0x1b, op == 0xd1,
		op >= 0x45 && op <= 0xc4:
		// no immediates
	case op == 0x0c, op == 0x0d, op == 0x10, op == 0x12, op == 0xd2,
		op >= 0x20 && op <= 0x26:
		_, err = r.u32()
	case op == 0x11, op == 0x13:
		err = r.u32s(2)
	case op == 0x0e: // br_table: the targets, then the default
		var n int
		if n, err = r.u32(); err == nil {
			err = r.u32s(n + 1)
		}
	case op == 0x1c: // select t*
		var n int
		if n, err = r.u32(); err == nil {
			err = r.skip(n)
		}
	case op >= 0x28 && op <= 0x3e: // memarg
		err = r.u32s(2)
	case op == 0x3f, op == 0x40, op == 0xd0:
		err = r.skip(1)
	case op == 0x41:
		_, err = r.leb(32)
	case op == 0x42:
		_, err = r.leb(64)
	case op == 0x43:
		err = r.skip(4)
	case op == 0x44:
		err = r.skip(8)
	case op == 0xfc:
		err = skipMisc(r)
	case op == 0xfd:
		err = skipVector(r)
	default:
		return errUnknown(op, 0, false)
	}
	return err
}

func errUnknown(op byte, sub int, prefixed bool) error {
	name := fmt.Sprintf("0x%02x", op)
	if prefixed {
		name = fmt.Sprintf("0x%02x %d", op, sub)
	}
	return &ModuleError{Msg: "the module does not compile: it uses instruction " + name + ", which fledge's wasm engine does not support"}
}

// skipMisc steps over a 0xfc instruction: saturating truncation, bulk
// memory and table operations.
func skipMisc(r *reader) error {
	sub, err := r.u32()
	if err != nil {
		return errTruncated
	}
	switch {
	case sub <= 7:
		return nil
	case sub == 8: // memory.init: data index, memory 0
		return r.u32s(2)
	case sub == 9, sub == 13, sub >= 15 && sub <= 17:
		return r.u32s(1)
	case sub == 10, sub == 12, sub == 14:
		return r.u32s(2)
	case sub == 11:
		return r.u32s(1)
	}
	return errUnknown(0xfc, sub, true)
}

// skipVector steps over a 0xfd (SIMD) instruction.
func skipVector(r *reader) error {
	sub, err := r.u32()
	if err != nil {
		return errTruncated
	}
	switch {
	case sub <= 0x0b, sub == 0x5c, sub == 0x5d: // loads and stores: memarg
		return r.u32s(2)
	case sub == 0x0c, sub == 0x0d: // v128.const, i8x16.shuffle
		return r.skip(16)
	case sub >= 0x15 && sub <= 0x22: // lane index
		return r.skip(1)
	case sub >= 0x54 && sub <= 0x5b: // memarg and lane index
		if err := r.u32s(2); err != nil {
			return err
		}
		return r.skip(1)
	case sub <= 0x113:
		return nil
	}
	return errUnknown(0xfd, sub, true)
}

// reader decodes LEB128 numbers from b.
type reader struct {
	b   []byte
	off int
}

func (r *reader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errTruncated
	}
	r.off++
	return r.b[r.off-1], nil
}

// skipLEB steps over a LEB128 number of at most 64 bits, signed or not.
func (r *reader) skipLEB() error {
	for i := 0; i < 10 && r.off < len(r.b); i++ {
		c := r.b[r.off]
		r.off++
		if c&0x80 == 0 {
			return nil
		}
	}
	return errTruncated
}

func (r *reader) skip(n int) error {
	if n < 0 || n > len(r.b)-r.off {
		return errTruncated
	}
	r.off += n
	return nil
}

// leb steps over a LEB128 number (signed or not) of at most bits bits,
// returning its low 63 bits read as unsigned.
func (r *reader) leb(bits int) (uint64, error) {
	var v uint64
	for i := 0; i < (bits+6)/7; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		if i < 9 {
			v |= uint64(c&0x7f) << (7 * i)
		}
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errTruncated
}

// u32 reads an unsigned LEB128 number, as an int.
func (r *reader) u32() (int, error) {
	v, err := r.leb(32)
	if err != nil || v > 1<<32-1 {
		return 0, errTruncated
	}
	return int(v), nil
}

func (r *reader) u32s(n int) error {
	for range n {
		if _, err := r.u32(); err != nil {
			return errTruncated
		}
	}
	return nil
}

package wasmhost

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/renameio"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// A warm run of a large module spent most of its time in wazero checking
// code it would not run: wazero decodes and validates every function of a
// module before it looks in the compilation cache (27 of 74 ms of CPU for
// a 3.7 MB Go module), and a cache hit then runs the native code compiled
// from the same bytes, which were validated when they were compiled.
// Then it allocated, validated and evaluated each of the module's data
// segments (40,000 for a Go module, most of 1 or 2 bytes).
//
// So once a module has compiled, fledge also files its cache entry under a
// second name: that of the module's stand-in (standIn), the same module
// with every function body replaced by `unreachable`, without its data
// section where the run can write the data itself (moduleData), and with
// a custom section carrying the module's SHA-256. A run hands wazero the
// stand-in: its types, imports, exports, memory, tables, globals and
// element segments are the module's, byte for byte, so wazero
// instantiates it as the module; its bodies validate in no time; the run
// then writes the module's data into its memory, as wazero would have,
// from the module's own bytes (writeData); and the code that runs is the
// entry's, the module's native code. The stand-in's own bodies are never
// compiled: a run asks for it with a context already cancelled, under
// which wazero returns only what its cache holds and compiles nothing
// (with more than one compilation worker, each checks the context before
// its first function), so a stand-in whose entry is missing or refused
// fails, and the run compiles, or loads, the module itself.
//
// The stand-in's entry is bound like any other (cache.go): a hard link to
// the module's entry, recorded with its SHA-256 in the record of the
// directory named for the module's SHA-256, so it runs only for the bytes
// it was compiled from. The SHA-256 inside the stand-in makes it, and its
// cache key, unique to the module: two modules that differ only in code
// have different stand-ins.
//
// Building the stand-in (a pass over the module's sections and its 40,000
// data segments) cost a warm run of a Go module some 1.5 ms, so the
// stand-in is also stored beside the record when its entry is filed
// (standInFile), and a run reads it instead of building it. What a run
// hands wazero is still exactly the stand-in of the module's bytes, which
// the run has read and hashed: a stored stand-in is used only if it ends
// with the section naming this module's SHA-256 and the current
// standInRevision, and wazero then finds its native code only under the
// SHA-256 of the bytes it is handed (wazero hashes them itself). The only
// entries in the module's directory are the ones its record binds: the
// module's own and the one filed under its true stand-in's name. So
// stored bytes that differ from the true stand-in in any way find no
// entry, and the run builds the stand-in and stores it again (as it does
// when none is stored: a cache filed by an older fledge). Nothing is
// skipped that tied the native code to the module's bytes.

// standInSection names the custom section a stand-in carries.
const standInSection = "fledge.module"

// standInRevision names what standIn writes: raise it whenever standIn
// changes its output, so that no stand-in an older fledge stored is used
// where this one would stand in otherwise. It is the last byte of the
// stand-in (after the module's SHA-256), so that raising it also renames
// every stand-in's entry.
const standInRevision = 2

// standInFile is the stand-in of the module stored in its cache directory,
// beside the record.
const standInFile = "standin.wasm"

// standIn returns the stand-in of module, whose SHA-256 is sum: module with
// each function body replaced by `unreachable` (no locals; valid for any
// function type), its data section left out when moduleData says the run
// writes the data, and the custom section standInSection holding sum
// appended (appendStandInTrailer). ok is false for a module with no code
// section, or one whose sections do not parse (wazero names that problem
// when it compiles the module itself).
func standIn(module []byte, sum [32]byte) ([]byte, bool) {
	if len(module) < 8 {
		return nil, false
	}
	_, noData := moduleData(module)
	out := make([]byte, 0, standInSize(module, noData))
	out = append(out, module[:8]...)
	r := reader{b: module, off: 8}
	found := false
	for r.off < len(r.b) {
		start := r.off
		id, err := r.byte()
		if err != nil {
			return nil, false
		}
		size, err := r.u32()
		if err != nil || size > len(r.b)-r.off {
			return nil, false
		}
		if id == sectionData && noData {
			r.off += size
			continue
		}
		if id != sectionCode {
			r.off += size
			out = append(out, module[start:r.off]...)
			continue
		}
		code := reader{b: module[r.off : r.off+size]}
		n, err := code.u32()
		if err != nil {
			return nil, false
		}
		// Each body: its size (3), no local declarations, unreachable, end.
		body := []byte{3, 0, 0x00, 0x0b}
		count := binary.AppendUvarint(nil, uint64(n))
		out = append(out, sectionCode)
		out = binary.AppendUvarint(out, uint64(len(count)+n*len(body)))
		out = append(out, count...)
		for range n {
			out = append(out, body...)
		}
		r.off += size
		found = true
	}
	if !found {
		return nil, false
	}
	return appendStandInTrailer(out, sum), true
}

// appendStandInTrailer appends the custom section that ends the stand-in
// of the module whose SHA-256 is sum: named standInSection, holding sum
// and standInRevision.
func appendStandInTrailer(out []byte, sum [32]byte) []byte {
	name := binary.AppendUvarint(nil, uint64(len(standInSection)))
	name = append(name, standInSection...)
	out = append(out, 0) // a custom section
	out = binary.AppendUvarint(out, uint64(len(name)+len(sum)+1))
	out = append(out, name...)
	out = append(out, sum[:]...)
	return append(out, standInRevision)
}

const (
	sectionStart     = 8
	sectionData      = 11
	sectionDataCount = 12
	opI32Const       = 0x41
	opEnd            = 0x0b
)

// standInSize is about how long module's stand-in is: the module less
// its code (and its data, when noData), plus a stub per function. (The
// buffer is zeroed when made: the module's length would be twice what
// most stand-ins need.)
func standInSize(module []byte, noData bool) int {
	size := len(module) + 64
	r := reader{b: module, off: 8}
	for r.off < len(r.b) {
		id, err := r.byte()
		if err != nil {
			break
		}
		n, err := r.u32()
		if err != nil || n > len(r.b)-r.off {
			break
		}
		switch {
		case id == sectionCode:
			code := reader{b: r.b[r.off : r.off+n]}
			funcs, _ := code.u32()
			size += 4*funcs - n
		case id == sectionData && noData:
			size -= n
		}
		r.off += n
	}
	return max(size, 8)
}

// moduleData returns the contents of module's data section when the run
// may write its segments itself once the stand-in is instantiated, so
// that the stand-in leaves them out: a Go module's 1.3 MB of data comes in
// 40,000 segments (most of 1 or 2 bytes), which wazero decoded, copied
// and evaluated one by one at every start, and which the stand-in carried
// (read, and hashed by wazero) even joined. ok is true when every segment
// is active, in memory 0, at an i32.const offset, and the module has no
// data count section (its code may then name segments by index:
// memory.init, data.drop) and no start section (its start function runs
// while wazero instantiates it, before the run writes the data). ok is
// false otherwise, when the sections do not parse, or when there is no
// data section.
func moduleData(module []byte) (data []byte, ok bool) {
	if section(module, sectionStart) != nil || section(module, sectionDataCount) != nil {
		return nil, false
	}
	data = section(module, sectionData)
	if data == nil || eachSegment(data, func(uint32, []byte) bool { return true }) != nil {
		return nil, false
	}
	return data, true
}

// section returns the contents of module's first section id: nil if it
// has none, or its sections do not parse up to it.
func section(module []byte, id byte) []byte {
	if len(module) < 8 {
		return nil
	}
	r := reader{b: module, off: 8}
	for r.off < len(r.b) {
		sid, err := r.byte()
		if err != nil {
			return nil
		}
		size, err := r.u32()
		if err != nil || size > len(r.b)-r.off {
			return nil
		}
		if sid == id {
			return r.b[r.off : r.off+size]
		}
		r.off += size
	}
	return nil
}

var errSegment = errors.New("a data segment fledge cannot write (not active in memory 0 at an i32.const offset)")

// eachSegment calls f with each segment of data, a data section's
// contents, in order: the offset it writes at and its bytes. It stops,
// with an error, at the first segment that is not active, in memory 0, at
// an i32.const offset, or does not parse, or when f returns false.
func eachSegment(data []byte, f func(at uint32, b []byte) bool) error {
	n, k := uvarint(data, 0)
	if k < 0 {
		return errSegment
	}
	for range n {
		// flag 0 (active, memory 0), i32.const <offset>, end, <size>.
		if k+2 > len(data) || data[k] != 0 || data[k+1] != opI32Const {
			return errSegment
		}
		at, next := sleb32(data, k+2)
		if next < 0 || next >= len(data) || data[next] != opEnd {
			return errSegment
		}
		size, from := uvarint(data, next+1)
		if from < 0 || size > uint64(len(data)-from) {
			return errSegment
		}
		k = from + int(size)
		if !f(uint32(at), data[from:k]) {
			return errSegment
		}
	}
	if k != len(data) {
		return errSegment
	}
	return nil
}

// uvarint decodes the unsigned LEB128 (32 bits at most) at b[k:]: the
// value and the offset after it, or -1.
func uvarint(b []byte, k int) (uint64, int) {
	var v uint64
	for shift := 0; shift < 35 && k < len(b); shift += 7 {
		c := b[k]
		k++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if v > 1<<32-1 {
				return 0, -1
			}
			return v, k
		}
	}
	return 0, -1
}

// sleb32 decodes the signed LEB128 i32 at b[k:]: the value and the offset
// after it, or -1.
func sleb32(b []byte, k int) (int32, int) {
	var v int64
	for shift := 0; shift < 35 && k < len(b); shift += 7 {
		c := b[k]
		k++
		v |= int64(c&0x7f) << shift
		if c < 0x80 {
			if shift+7 < 64 && c&0x40 != 0 {
				v |= -1 << (shift + 7)
			}
			if v < -1<<31 || v > 1<<31-1 {
				return 0, -1
			}
			return int32(v), k
		}
	}
	return 0, -1
}

// writeData writes the segments of data, a data section's contents that
// moduleData accepts, into mem, in order, as wazero instantiating the
// module would have: a segment that does not fit in memory fails the
// start, the ones before it written.
func writeData(mem api.Memory, data []byte) error {
	if data == nil {
		return nil
	}
	var buf []byte
	if mem != nil {
		buf, _ = mem.Read(0, mem.Size()) // a view of the memory, not a copy
	}
	i := 0
	var fit error
	err := eachSegment(data, func(at uint32, b []byte) bool {
		if uint64(at)+uint64(len(b)) > uint64(len(buf)) {
			fit = fmt.Errorf("data segment %d (%d bytes at %d) does not fit in its %d bytes of memory", i, len(b), at, len(buf))
			return false
		}
		copy(buf[at:], b)
		i++
		return true
	})
	if fit != nil {
		return fit
	}
	return err
}

// loadStandIn loads the module through its stand-in, when its cache binds
// one, with a context already cancelled so that wazero compiles nothing:
// nil when there is none or wazero has no usable entry for it (the caller
// then compiles, or loads, the module itself). It returns the stand-in it
// loaded, too.
// The stand-in stored beside the record is used when there is one; when
// it is missing or finds no entry, the stand-in is built, and stored if
// its entry loads.
func loadStandIn(ctx context.Context, rt wazero.Runtime, cache *moduleCache, module []byte) (wazero.CompiledModule, []byte) {
	if !cache.hasStandIn() {
		return nil, nil
	}
	if s := cache.storedStandIn(module); s != nil {
		if cm := loadCached(ctx, rt, s); cm != nil {
			return cm, s
		}
	}
	s, ok := standIn(module, cache.sum)
	if !ok {
		return nil, nil
	}
	cm := loadCached(ctx, rt, s)
	if cm == nil {
		cache.forgetStandIn()
		return nil, nil
	}
	cache.storeStandIn(s)
	return cm, s
}

// loadCached returns module as rt's compilation cache holds it, compiling
// nothing: nil when the cache has no usable entry for it, or it does not
// decode.
func loadCached(ctx context.Context, rt wazero.Runtime, module []byte) wazero.CompiledModule {
	// Two workers: each checks the context before compiling a function,
	// so a miss fails before any is compiled and nothing is cached.
	cctx, cancel := context.WithCancel(experimental.WithCompilationWorkers(ctx, 2))
	cancel()
	cm, err := rt.CompileModule(cctx, module)
	if err != nil {
		return nil
	}
	return cm
}

// storedStandIn returns the stand-in stored in c's directory if it may be
// module's: it begins with module's header and ends with the section
// naming module's SHA-256 and the current standInRevision. Whether it is
// module's stand-in, byte for byte, is then the cache's to say (see
// above). nil if there is none, or it is not.
func (c *moduleCache) storedStandIn(module []byte) []byte {
	if c.dir == "" || len(module) < 8 {
		return nil
	}
	f, err := bounded.Open(filepath.Join(c.dir, standInFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxModuleSize {
		return nil
	}
	s := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, s); err != nil {
		return nil
	}
	trailer := appendStandInTrailer(nil, c.sum)
	if len(s) < 8+len(trailer) || !bytes.Equal(s[:8], module[:8]) || !bytes.HasSuffix(s, trailer) {
		return nil
	}
	return s
}

// storeStandIn stores s, the stand-in of c's module, beside its record.
// A cache that cannot be written (a read-only home) goes without: runs
// then build the stand-in.
func (c *moduleCache) storeStandIn(s []byte) {
	if c.dir != "" {
		_ = renameio.WriteFile(filepath.Join(c.dir, standInFile), s)
	}
}

// fileStandIn files the module's cache entry under its stand-in's name,
// once the module has compiled or loaded through c, so that the next runs
// load it through the stand-in. It costs one compile of the stand-in (its
// bodies are `unreachable`: about 45 ms for a 3.7 MB Go module), in a
// scratch cache, to learn the name wazero gives its entry, once per
// module. It files nothing when c is in memory, or when the module's
// directory holds entries that differ: runs then load the module itself,
// as they did. Where the file system has no hard links, the entry is
// copied. A stand-in the record named before (another fledge's) is
// removed. The stand-in is stored beside the record (standInFile).
func (c *moduleCache) fileStandIn(ctx context.Context, module []byte) {
	if c.dir == "" || c.hasStandIn() {
		return
	}
	// The module's entry: every entry must hold the same (links to it,
	// or copies, from an older stand-in). Entries that differ (compiled
	// for another CPU, by a home shared between machines) leave it
	// unknown: the module is then loaded itself, as it was.
	found, err := entries(c.dir)
	if err != nil {
		return
	}
	var entry, sum string
	for p := range found {
		e, _, err := entrySum(filepath.Join(c.dir, filepath.FromSlash(p)))
		if err != nil || sum != "" && e != sum {
			return
		}
		entry, sum = p, e
	}
	if entry == "" {
		return
	}
	s, ok := standIn(module, c.sum)
	if !ok {
		return
	}
	name, err := standInName(ctx, filepath.Dir(c.dir), s)
	if err != nil {
		return
	}
	from := filepath.Join(c.dir, filepath.FromSlash(entry))
	to := filepath.Join(c.dir, filepath.FromSlash(name))
	if fi, ok := found[name]; !ok || !os.SameFile(found[entry], fi) {
		if linkOrCopy(from, to) != nil {
			return
		}
	}
	if old := record(c.dir, c.id).standIn; old != "" && old != name {
		_ = os.Remove(filepath.Join(c.dir, filepath.FromSlash(old)))
	}
	c.storeStandIn(s)
	c.mu.Lock()
	c.standIn = name
	c.mu.Unlock()
}

// linkOrCopy makes to a hard link to from, or else a copy of it, replacing
// what is there at once (through a temporary file entries leaves out).
func linkOrCopy(from, to string) error {
	tmp := to + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Link(from, tmp); err != nil {
		if err := copyFile(from, tmp); err != nil {
			_ = os.Remove(tmp)
			return err
		}
	}
	err := os.Rename(tmp, to)
	_ = os.Remove(tmp) // still there when to was already a link to from
	return err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// scratchPrefix begins the name of a scratch cache standInName makes; one a
// crash left is deleted by a later run (sweepScratch).
const scratchPrefix = ".standin-"

// standInName compiles the stand-in s in a scratch cache below root and
// returns the path, relative to a module's directory, of the entry wazero
// wrote for it: its name depends on the CPU's features, which wazero
// does not expose.
func standInName(ctx context.Context, root string, s []byte) (string, error) {
	scratch, err := os.MkdirTemp(root, scratchPrefix+"*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch)
	cc, err := wazero.NewCompilationCacheWithDir(scratch)
	if err != nil {
		return "", err
	}
	defer cc.Close(ctx)
	rt := wazero.NewRuntimeWithConfig(ctx, runtimeConfig(cc))
	defer rt.Close(ctx)
	cctx, cancel := context.WithTimeout(experimental.WithCompilationWorkers(ctx, 2), CompileTimeout)
	defer cancel()
	if _, err := rt.CompileModule(cctx, s); err != nil {
		return "", err
	}
	found, err := entries(scratch)
	if err != nil {
		return "", err
	}
	if len(found) != 1 {
		return "", fmt.Errorf("the stand-in left %d cache entries, not 1", len(found))
	}
	for name := range found {
		return name, nil
	}
	panic("unreachable")
}

func (c *moduleCache) hasStandIn() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.standIn != ""
}

func (c *moduleCache) forgetStandIn() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.standIn = ""
}

package wasmhost

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// A warm run of a large module spent most of its time in wazero checking
// code it would not run: wazero decodes and validates every function of a
// module before it looks in the compilation cache (27 of 74 ms of CPU for
// a 3.7 MB Go module), and a cache hit then runs the native code compiled
// from the same bytes, which were validated when they were compiled.
//
// So once a module has compiled, fledge also files its cache entry under a
// second name: that of the module's stand-in (standIn), the same module
// with every function body replaced by `unreachable` and a custom section
// carrying the module's SHA-256. A run hands wazero the stand-in: its
// types, imports, exports, memory, tables, globals and data are the
// module's, byte for byte, so wazero instantiates it exactly as the
// module; its bodies validate in no time; and the code that runs is the
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

// standInSection names the custom section a stand-in carries.
const standInSection = "fledge.module"

// standIn returns the stand-in of module, whose SHA-256 is sum: module with
// each function body replaced by `unreachable` (no locals; valid for any
// function type), and the custom section standInSection holding sum
// appended. ok is false for a module with no code section, or one whose
// sections do not parse (wazero names that problem when it compiles the
// module itself).
func standIn(module []byte, sum [32]byte) ([]byte, bool) {
	if len(module) < 8 {
		return nil, false
	}
	out := make([]byte, 0, len(module))
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
	name := binary.AppendUvarint(nil, uint64(len(standInSection)))
	name = append(name, standInSection...)
	out = append(out, 0) // a custom section
	out = binary.AppendUvarint(out, uint64(len(name)+len(sum)))
	out = append(out, name...)
	return append(out, sum[:]...), true
}

// loadStandIn loads the module through its stand-in, when its cache binds
// one, with a context already cancelled so that wazero compiles nothing:
// nil when there is none or wazero has no usable entry for it (the caller
// then compiles, or loads, the module itself).
func loadStandIn(ctx context.Context, rt wazero.Runtime, cache *moduleCache, module []byte) wazero.CompiledModule {
	if !cache.hasStandIn() {
		return nil
	}
	s, ok := standIn(module, cache.sum)
	if !ok {
		return nil
	}
	// Two workers: each checks the context before compiling a function,
	// so a miss fails before any is compiled and nothing is cached.
	cctx, cancel := context.WithCancel(experimental.WithCompilationWorkers(ctx, 2))
	cancel()
	cm, err := rt.CompileModule(cctx, s)
	if err != nil {
		cache.forgetStandIn()
		return nil
	}
	return cm
}

// fileStandIn files the module's cache entry under its stand-in's name,
// once the module has compiled or loaded through c, so that the next runs
// load it through the stand-in. It costs one compile of the stand-in (its
// bodies are `unreachable`: about 45 ms for a 3.7 MB Go module), in a
// scratch cache, to learn the name wazero gives its entry, once per
// module. It files nothing when c is in memory, when the module's
// directory holds other than its one entry, or when the file system
// refuses a hard link: runs then load the module itself, as they did.
func (c *moduleCache) fileStandIn(ctx context.Context, module []byte) {
	if c.dir == "" || c.hasStandIn() {
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
	found, err := entries(c.dir)
	if err != nil {
		return
	}
	delete(found, name)
	if len(found) != 1 {
		return
	}
	for entry := range found {
		from := filepath.Join(c.dir, filepath.FromSlash(entry))
		to := filepath.Join(c.dir, filepath.FromSlash(name))
		tmp := to + ".tmp" // a name entries leaves out, as wazero's own
		_ = os.Remove(tmp)
		if os.Link(from, tmp) != nil {
			return
		}
		if os.Rename(tmp, to) != nil {
			_ = os.Remove(tmp)
			return
		}
	}
	c.mu.Lock()
	c.standIn = name
	c.mu.Unlock()
}

// standInName compiles the stand-in s in a scratch cache below root and
// returns the path, relative to a module's directory, of the entry wazero
// wrote for it: its name depends on the CPU's features, which wazero
// does not expose.
func standInName(ctx context.Context, root string, s []byte) (string, error) {
	scratch, err := os.MkdirTemp(root, ".standin-")
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

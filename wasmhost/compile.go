package wasmhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// ModuleFledge and ModuleWASI are the only modules a plugin may import from.
const (
	ModuleFledge = "fledge"
	ModuleWASI   = wasi_snapshot_preview1.ModuleName
)

// WazeroVersion is the wazero release fledge is built with (a test holds
// it to go.mod). Cache entries live in a directory named for it: wazero
// names its own directory from the binary's build information, which a
// build without module information reports as "dev" for every version.
const WazeroVersion = "v1.12.0"

// MaxModuleSize bounds the .wasm file fledge reads (256 MiB).
const MaxModuleSize = 256 << 20

var (
	i32 = api.ValueTypeI32
	// hostFuncs are the fledge imports and their signatures (params,
	// results), as the Rust fledge links them.
	hostFuncs = map[string][2][]api.ValueType{
		"send":      {{i32, i32}, nil},
		"recv":      {{i32, i32}, {i32}},
		"exit":      {{i32}, nil},
		"exec":      {{i32, i32}, {i32}},
		"store_set": {{i32, i32}, nil},
		"store_get": {{i32, i32}, {i32}},
		"metadata":  {{i32, i32}, {i32}},
	}
)

// ModuleError says why a module cannot run as a fledge plugin. Import names
// the offending import ("module.name") when there is one.
type ModuleError struct {
	Import string
	Msg    string
	// Bound is set when the module is past a compilation bound (Bounds,
	// CompileTimeout).
	Bound bool
}

func (e *ModuleError) Error() string { return e.Msg }

// ReadModule reads a .wasm file, refusing one larger than MaxModuleSize.
func ReadModule(path string) ([]byte, error) {
	// bounded.Open: a named pipe in the module's place would block an
	// open for reading until something wrote to it.
	f, err := bounded.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > MaxModuleSize {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d a wasm plugin may have", path, fi.Size(), MaxModuleSize)
	}
	b := make([]byte, fi.Size())
	if _, err := readFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// newRuntime returns a runtime configured as every run is, so that a module
// compiled at install is found in the cache at run time. cacheDir "" means
// no on-disk cache; otherwise module's own directory in it (see cache.go)
// is checked and used.
func newRuntime(ctx context.Context, cacheDir string, module []byte) (wazero.Runtime, *moduleCache, error) {
	cache, err := cacheFor(cacheDir, module)
	if err != nil {
		return nil, nil, err
	}
	return wazero.NewRuntimeWithConfig(ctx, runtimeConfig(cache.cc)), cache, nil
}

// runtimeConfig is the configuration of every runtime fledge compiles or
// runs a module in, with the compilation cache cc: wazero's cache key
// covers part of it (CloseOnContextDone), so a module compiled at install,
// or a stand-in's entry (standin.go), is found only under the same one.
func runtimeConfig(cc wazero.CompilationCache) wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().WithCloseOnContextDone(true).WithCompilationCache(cc).
		// Source lines in trap traces would cost a DWARF parse on every
		// exit: seconds for an unstripped module.
		WithDebugInfoEnabled(false)
}

// compile compiles module in rt and checks it (see Check) against the
// WASI functions rt has instantiated, or else compiles them to see.
// When module's cache binds a stand-in entry, the module is loaded
// through its stand-in, which wazero validates in no time (standin.go);
// otherwise it is compiled, or loaded, itself, and its stand-in filed.
// data is the data section the stand-in left out, which the run writes
// once it is instantiated (writeData). The bounds scan is skipped when
// module's cache says that these bytes passed it (see cache.go).
func compile(ctx context.Context, rt wazero.Runtime, cache *moduleCache, module []byte, memLimit uint64) (cm wazero.CompiledModule, data []byte, err error) {
	if len(module) == 0 {
		return nil, nil, &ModuleError{Msg: "the module is empty (was it built?)"}
	}
	// A stand-in compiles nothing, but a module the bounds have not
	// passed under the current Bounds is scanned (and maybe refused)
	// first, as a compile would.
	var si []byte
	if !cache.needsScan() {
		cm, si = loadStandIn(ctx, rt, cache, module)
	}
	standIn := cm != nil
	if standIn {
		// The stand-in that loaded is, byte for byte, the one standIn
		// derives from these bytes (standin.go), which leaves out the
		// data section exactly when moduleData accepts it: so its
		// data section missing says, without a second look at 40,000
		// segments, that the run writes them.
		if data = section(module, sectionData); section(si, sectionData) != nil {
			data = nil
		}
	} else if cm, err = compileModule(ctx, rt, cache, module); err != nil {
		return nil, nil, err
	}
	var wasiFuncs map[string]api.FunctionDefinition
	if m := rt.Module(ModuleWASI); m != nil {
		wasiFuncs = m.ExportedFunctionDefinitions()
	} else {
		wasi, err := wasi_snapshot_preview1.NewBuilder(rt).Compile(ctx)
		if err != nil {
			return nil, nil, err
		}
		defer wasi.Close(ctx)
		wasiFuncs = wasi.ExportedFunctions()
	}
	if err := check(cm, wasiFuncs, memLimit); err != nil {
		return nil, nil, err
	}
	if !standIn {
		cache.fileStandIn(ctx, module)
	}
	return cm, data, nil
}

// compileModule compiles module itself in rt, within the compilation
// bounds.
func compileModule(ctx context.Context, rt wazero.Runtime, cache *moduleCache, module []byte) (wazero.CompiledModule, error) {
	if cache.needsScan() {
		if err := checkBounds(module); err != nil {
			var be *BoundError
			if errors.As(err, &be) {
				return nil, &ModuleError{Msg: "the module is too large to compile safely: " + be.Error(), Bound: true}
			}
			return nil, err
		}
	}
	// With more than one worker, wazero checks the context between
	// functions, so the deadline holds whatever the module.
	cctx, cancel := context.WithTimeoutCause(experimental.WithCompilationWorkers(ctx, 2), CompileTimeout, errCompileTimeout)
	defer cancel()
	cm, err := rt.CompileModule(cctx, module)
	if err != nil && cctx.Err() == nil && cache.drop() {
		// wazero refused an entry of this module (its native code failed
		// the entry's checksum, see entrySum): compile it afresh.
		cm, err = rt.CompileModule(cctx, module)
	}
	if errors.Is(context.Cause(cctx), errCompileTimeout) {
		return nil, &ModuleError{Msg: fmt.Sprintf("the module is too large to compile safely: it took more than %s", CompileTimeout), Bound: true}
	}
	if err != nil {
		return nil, &ModuleError{Msg: "the module does not compile: " + firstLine(err.Error())}
	}
	return cm, nil
}

// Check compiles module as a run would, through the cache in cacheDir
// ("" for none), and checks what fledge needs of it: it exports its memory
// and _start, imports only fledge's host functions and WASI preview 1 (by
// their names and exact signatures), and starts within the memory limit.
// The error is a *ModuleError naming the problem.
func Check(ctx context.Context, module []byte, cacheDir string) error {
	rt, cache, err := newRuntime(ctx, cacheDir, module)
	if err != nil {
		return err
	}
	defer rt.Close(ctx)
	if _, _, err = compile(ctx, rt, cache, module, DefaultMemory); err != nil {
		return err
	}
	return cache.bind()
}

func check(cm wazero.CompiledModule, wasi map[string]api.FunctionDefinition, memLimit uint64) error {
	imports := cm.ImportedFunctions()
	// Report the imports in a stable order, the first bad one.
	sort.SliceStable(imports, func(i, j int) bool {
		mi, ni, _ := imports[i].Import()
		mj, nj, _ := imports[j].Import()
		return mi+"."+ni < mj+"."+nj
	})
	for _, f := range imports {
		mod, name, _ := f.Import()
		full := mod + "." + name
		switch mod {
		case ModuleFledge:
			sig, ok := hostFuncs[name]
			if !ok {
				return &ModuleError{Import: full, Msg: fmt.Sprintf("the module imports %s, which fledge does not provide (fledge provides %s)", full, strings.Join(hostNames(), ", "))}
			}
			if !sameSig(f, sig[0], sig[1]) {
				return &ModuleError{Import: full, Msg: fmt.Sprintf("the module imports %s as %s, but fledge provides it as %s", full, sigString(f.ParamTypes(), f.ResultTypes()), sigString(sig[0], sig[1]))}
			}
		case ModuleWASI:
			d, ok := wasi[name]
			if !ok {
				return &ModuleError{Import: full, Msg: fmt.Sprintf("the module imports %s, which is not a WASI preview 1 function", full)}
			}
			if !sameSig(f, d.ParamTypes(), d.ResultTypes()) {
				return &ModuleError{Import: full, Msg: fmt.Sprintf("the module imports %s as %s, but WASI preview 1 defines it as %s", full, sigString(f.ParamTypes(), f.ResultTypes()), sigString(d.ParamTypes(), d.ResultTypes()))}
			}
		default:
			return &ModuleError{Import: full, Msg: fmt.Sprintf("the module imports %s; a fledge plugin may import only from %q and %q (build it for wasm32-wasip1 / GOOS=wasip1)", full, ModuleFledge, ModuleWASI)}
		}
	}
	for _, m := range cm.ImportedMemories() {
		mod, name, _ := m.Import()
		return &ModuleError{Import: mod + "." + name, Msg: fmt.Sprintf("the module imports its memory (%s.%s); a fledge plugin must define and export it", mod, name)}
	}
	mem, ok := cm.ExportedMemories()["memory"]
	if !ok {
		return &ModuleError{Msg: `the module does not export its memory as "memory"`}
	}
	if need := uint64(mem.Min()) * pageSize; need > memLimit {
		return &ModuleError{Msg: fmt.Sprintf("the module needs %d MiB of memory to start, more than the %d MiB limit", need>>20, memLimit>>20)}
	}
	start, ok := cm.ExportedFunctions()["_start"]
	if !ok {
		return &ModuleError{Msg: "the module does not export _start (build it as a WASI command, with a main function)"}
	}
	if len(start.ParamTypes()) != 0 || len(start.ResultTypes()) != 0 {
		return &ModuleError{Msg: "the module's _start takes parameters or returns results; it must be () -> ()"}
	}
	return nil
}

const pageSize = 65536

func hostNames() []string {
	names := make([]string, 0, len(hostFuncs))
	for n := range hostFuncs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func sameSig(f api.FunctionDefinition, params, results []api.ValueType) bool {
	return string(f.ParamTypes()) == string(params) && string(f.ResultTypes()) == string(results)
}

func sigString(params, results []api.ValueType) string {
	name := func(ts []api.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(t)
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	return name(params) + " -> " + name(results)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

var errCompileTimeout = errors.New("compilation timed out")

// errStopped is the cause of an instance's context when fledge stopped it.
var errStopped = errors.New("stopped by fledge")

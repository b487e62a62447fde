package testutil

// WasmModule describes a tiny hand-assembled wasm module for tests: its
// imports (all functions), one memory, and a _start whose body is Start
// (raw instructions, without the final end). Imported functions are
// numbered first, so Start calls import i with "call i".
type WasmModule struct {
	Imports []WasmImport
	// Start is _start's code; nil means an empty body.
	Start []byte
	// MemPages is the memory's minimum size in 64 KiB pages.
	MemPages uint32
	// NoMemory leaves the memory out; NoStart leaves _start out;
	// StartParams gives _start an i32 parameter.
	NoMemory, NoStart, StartParams bool
	// Data is placed in memory at DataAt.
	Data   string
	DataAt int32
	// StartLocals is how many i32 locals _start declares. Funcs are more
	// functions (of _start's type, after it), each a raw body without its
	// final end.
	StartLocals uint32
	Funcs       [][]byte
}

// WasmImport is an imported function: params and results are value types
// (I32 for most).
type WasmImport struct {
	Module, Name    string
	Params, Results []byte
}

// Wasm value types and a few opcodes.
const (
	I32 byte = 0x7f
	I64 byte = 0x7e

	OpUnreachable byte = 0x00
	OpBlock       byte = 0x02
	OpLoop        byte = 0x03
	OpBr          byte = 0x0c
	OpBrIf        byte = 0x0d
	OpEnd         byte = 0x0b
	OpCall        byte = 0x10
	OpDrop        byte = 0x1a
	OpLocalGet    byte = 0x20
	OpI32Const    byte = 0x41
	OpMemoryGrow  byte = 0x40
	OpI32Eqz      byte = 0x45
)

// I32Const returns the instruction pushing v.
func I32Const(v int32) []byte { return append([]byte{OpI32Const}, sleb(int64(v))...) }

// HelloWasm is a tiny fledge-v1 wasm plugin: it reads init, sends
// {"type":"output","text":"hello from wasm\n"} and exits with code.
func HelloWasm(code int32) []byte {
	msg := `{"type":"output","text":"hello from wasm\n"}`
	i32x2 := []byte{I32, I32}
	var start []byte
	for _, part := range [][]byte{
		I32Const(0), I32Const(1000), {OpCall, 1, OpDrop}, // recv(0, 1000): init
		I32Const(1024), I32Const(int32(len(msg))), {OpCall, 0}, // send
		I32Const(code), {OpCall, 2}, // exit
	} {
		start = append(start, part...)
	}
	return WasmModule{Imports: []WasmImport{
		{Module: "fledge", Name: "send", Params: i32x2},
		{Module: "fledge", Name: "recv", Params: i32x2, Results: []byte{I32}},
		{Module: "fledge", Name: "exit", Params: []byte{I32}},
	}, MemPages: 1, Data: msg, DataAt: 1024, Start: start}.Bytes()
}

// Bytes encodes the module.
func (m WasmModule) Bytes() []byte {
	out := []byte{0x00, 'a', 's', 'm', 1, 0, 0, 0}
	// Types: one per import, then _start's.
	var types [][]byte
	for _, im := range m.Imports {
		types = append(types, funcType(im.Params, im.Results))
	}
	startParams := []byte{}
	if m.StartParams {
		startParams = []byte{I32}
	}
	types = append(types, funcType(startParams, nil))
	out = section(out, 1, vec(types))
	var imports [][]byte
	for i, im := range m.Imports {
		e := append(name(im.Module), name(im.Name)...)
		e = append(e, 0x00)
		e = append(e, uleb(uint64(i))...)
		imports = append(imports, e)
	}
	if len(imports) > 0 {
		out = section(out, 2, vec(imports))
	}
	if !m.NoStart {
		funcs := [][]byte{uleb(uint64(len(m.Imports)))}
		for range m.Funcs {
			funcs = append(funcs, uleb(uint64(len(m.Imports))))
		}
		out = section(out, 3, vec(funcs))
	}
	if !m.NoMemory {
		out = section(out, 5, vec([][]byte{append([]byte{0x00}, uleb(uint64(m.MemPages))...)}))
	}
	var exports [][]byte
	if !m.NoMemory {
		exports = append(exports, append(name("memory"), 0x02, 0x00))
	}
	if !m.NoStart {
		exports = append(exports, append(append(name("_start"), 0x00), uleb(uint64(len(m.Imports)))...))
	}
	out = section(out, 7, vec(exports))
	if !m.NoStart {
		locals := []byte{0x00}
		if m.StartLocals > 0 {
			locals = append(append([]byte{0x01}, uleb(uint64(m.StartLocals))...), I32)
		}
		bodies := [][]byte{funcBody(locals, m.Start)}
		for _, f := range m.Funcs {
			bodies = append(bodies, funcBody([]byte{0x00}, f))
		}
		out = section(out, 10, vec(bodies))
	}
	if m.Data != "" {
		seg := append([]byte{0x00}, I32Const(m.DataAt)...)
		seg = append(seg, OpEnd)
		seg = append(seg, name(m.Data)...)
		out = section(out, 11, vec([][]byte{seg}))
	}
	return out
}

func funcBody(locals, code []byte) []byte {
	body := append(append(append([]byte{}, locals...), code...), OpEnd)
	return append(uleb(uint64(len(body))), body...)
}

func funcType(params, results []byte) []byte {
	b := []byte{0x60}
	b = append(b, uleb(uint64(len(params)))...)
	b = append(b, params...)
	b = append(b, uleb(uint64(len(results)))...)
	return append(b, results...)
}

func section(out []byte, id byte, content []byte) []byte {
	out = append(out, id)
	out = append(out, uleb(uint64(len(content)))...)
	return append(out, content...)
}

func vec(items [][]byte) []byte {
	b := uleb(uint64(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

func name(s string) []byte { return append(uleb(uint64(len(s))), s...) }

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		b = append(b, c)
		if v == 0 {
			return b
		}
	}
}

func sleb(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		done := (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0)
		if !done {
			c |= 0x80
		}
		b = append(b, c)
		if done {
			return b
		}
	}
}

package cli_test

import (
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
)

// mkwasm FILE [CODE|loop]: write a tiny wasm plugin that reads init, sends
// {"type":"output","text":"hello from wasm\n"} and exits with CODE (0),
// or (loop) one that loops forever.
func cmdMkwasm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: mkwasm FILE [CODE|loop]")
	}
	if len(args) == 2 && args[1] == "loop" {
		mod := tu.WasmModule{MemPages: 1, Start: []byte{tu.OpLoop, 0x40, tu.OpBr, 0, tu.OpEnd}}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), mod.Bytes(), 0o644))
		return
	}
	code := 0
	if len(args) == 2 {
		var err error
		code, err = strconv.Atoi(args[1])
		ts.Check(err)
	}
	msg := `{"type":"output","text":"hello from wasm\n"}`
	i32x2 := []byte{tu.I32, tu.I32}
	var start []byte
	for _, part := range [][]byte{
		tu.I32Const(0), tu.I32Const(1000), {tu.OpCall, 1, tu.OpDrop}, // recv(0, 1000): init
		tu.I32Const(1024), tu.I32Const(int32(len(msg))), {tu.OpCall, 0}, // send
		tu.I32Const(int32(code)), {tu.OpCall, 2}, // exit
	} {
		start = append(start, part...)
	}
	mod := tu.WasmModule{Imports: []tu.WasmImport{
		{Module: "fledge", Name: "send", Params: i32x2},
		{Module: "fledge", Name: "recv", Params: i32x2, Results: []byte{tu.I32}},
		{Module: "fledge", Name: "exit", Params: []byte{tu.I32}},
	}, MemPages: 1, Data: msg, DataAt: 1024, Start: start}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), mod.Bytes(), 0o644))
}

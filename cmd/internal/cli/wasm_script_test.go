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
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), tu.HelloWasm(int32(code)), 0o644))
}

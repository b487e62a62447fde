package wasmhost

import (
	"context"
	"errors"
	"strings"
	"testing"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
)

var (
	i32x2    = []byte{tu.I32, tu.I32}
	fSend    = tu.WasmImport{Module: "fledge", Name: "send", Params: i32x2}
	fRecv    = tu.WasmImport{Module: "fledge", Name: "recv", Params: i32x2, Results: []byte{tu.I32}}
	fExit    = tu.WasmImport{Module: "fledge", Name: "exit", Params: []byte{tu.I32}}
	fExec    = tu.WasmImport{Module: "fledge", Name: "exec", Params: i32x2, Results: []byte{tu.I32}}
	fStoreS  = tu.WasmImport{Module: "fledge", Name: "store_set", Params: i32x2}
	fStoreG  = tu.WasmImport{Module: "fledge", Name: "store_get", Params: i32x2, Results: []byte{tu.I32}}
	fMeta    = tu.WasmImport{Module: "fledge", Name: "metadata", Params: i32x2, Results: []byte{tu.I32}}
	wasiExit = tu.WasmImport{Module: "wasi_snapshot_preview1", Name: "proc_exit", Params: []byte{tu.I32}}
)

func TestCheck(t *testing.T) {
	t.Parallel()
	all := []tu.WasmImport{fSend, fRecv, fExit, fExec, fStoreS, fStoreG, fMeta, wasiExit}
	for _, tc := range []struct {
		name  string
		mod   []byte
		imp   string // the import the error must name
		words string // "" means the module is accepted
	}{
		{"every host function", tu.WasmModule{Imports: all, MemPages: 1}.Bytes(), "", ""},
		{"nothing imported", tu.WasmModule{MemPages: 1}.Bytes(), "", ""},
		{"foreign module", tu.WasmModule{Imports: []tu.WasmImport{fSend, {Module: "env", Name: "abort", Params: []byte{tu.I32}}}, MemPages: 1}.Bytes(), "env.abort", "env.abort"},
		{"unknown fledge function", tu.WasmModule{Imports: []tu.WasmImport{{Module: "fledge", Name: "socket", Params: i32x2}}, MemPages: 1}.Bytes(), "fledge.socket", "does not provide"},
		{"send returning a value", tu.WasmModule{Imports: []tu.WasmImport{{Module: "fledge", Name: "send", Params: i32x2, Results: []byte{tu.I32}}}, MemPages: 1}.Bytes(), "fledge.send", "(i32, i32) -> ()"},
		{"recv with i64", tu.WasmModule{Imports: []tu.WasmImport{{Module: "fledge", Name: "recv", Params: []byte{tu.I64, tu.I32}, Results: []byte{tu.I32}}}, MemPages: 1}.Bytes(), "fledge.recv", "i64"},
		{"unknown WASI function", tu.WasmModule{Imports: []tu.WasmImport{{Module: "wasi_snapshot_preview1", Name: "sock_connect"}}, MemPages: 1}.Bytes(), "wasi_snapshot_preview1.sock_connect", "not a WASI preview 1"},
		{"WASI signature", tu.WasmModule{Imports: []tu.WasmImport{{Module: "wasi_snapshot_preview1", Name: "proc_exit", Params: []byte{tu.I64}}}, MemPages: 1}.Bytes(), "wasi_snapshot_preview1.proc_exit", "defines it as"},
		{"no memory", tu.WasmModule{NoMemory: true}.Bytes(), "", "memory"},
		{"no _start", tu.WasmModule{NoStart: true, MemPages: 1}.Bytes(), "", "_start"},
		{"_start with a parameter", tu.WasmModule{StartParams: true, MemPages: 1}.Bytes(), "", "_start"},
		{"memory beyond the limit", tu.WasmModule{MemPages: 5000}.Bytes(), "", "limit"},
		{"not wasm", []byte("#!/bin/sh\necho hi\n"), "", "does not compile"},
		{"empty", nil, "", "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(context.Background(), tc.mod, "")
			if tc.words == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var me *ModuleError
			if !errors.As(err, &me) || !strings.Contains(me.Msg, tc.words) || me.Import != tc.imp {
				t.Fatalf("err = %#v, want a ModuleError naming %q and saying %q", err, tc.imp, tc.words)
			}
		})
	}
}

func TestMounts(t *testing.T) {
	t.Parallel()
	for fs, want := range map[string][2]bool{"": {}, "none": {}, "project": {true, false}, "plugin": {true, true}, "everything": {}} {
		if p, w := Mounts(fs); p != want[0] || w != want[1] {
			t.Errorf("Mounts(%q) = %v, %v", fs, p, w)
		}
	}
}

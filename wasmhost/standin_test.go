package wasmhost

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/tetratelabs/wazero"
)

// exitModule is a module whose _start calls fledge.exit(code).
func exitModule(code int32) []byte {
	return tu.WasmModule{Imports: []tu.WasmImport{fExit}, MemPages: 1, Data: "data", Start: seq(tu.I32Const(code), call(0))}.Bytes()
}

// TestStandInIsTheModuleWithoutCode: a stand-in has the module's imports,
// exports and memory, validates, and traps if its own code ever ran; it
// carries the module's SHA-256, so two modules that differ only in code
// have different stand-ins.
func TestStandInIsTheModuleWithoutCode(t *testing.T) {
	ctx := context.Background()
	a, b := exitModule(3), exitModule(4)
	sa, ok := standIn(a, sha256.Sum256(a))
	if !ok {
		t.Fatal("no stand-in for a module with code")
	}
	sb, _ := standIn(b, sha256.Sum256(b))
	if bytes.Equal(sa, sb) {
		t.Error("two modules that differ in code have the same stand-in")
	}
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	cm, err := rt.CompileModule(ctx, sa)
	if err != nil {
		t.Fatalf("the stand-in does not compile: %v", err)
	}
	orig, err := rt.CompileModule(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	names := func(cm wazero.CompiledModule) string {
		var s []string
		for _, f := range cm.ImportedFunctions() {
			m, n, _ := f.Import()
			s = append(s, m+"."+n+sigString(f.ParamTypes(), f.ResultTypes()))
		}
		for n, f := range cm.ExportedFunctions() {
			s = append(s, "export "+n+sigString(f.ParamTypes(), f.ResultTypes()))
		}
		for n, m := range cm.ExportedMemories() {
			s = append(s, "memory "+n+" "+fmt.Sprint(m.Min()))
		}
		return strings.Join(s, "; ")
	}
	if got, want := names(cm), names(orig); got != want {
		t.Errorf("the stand-in has %s; the module %s", got, want)
	}
	// Its own code is unreachable: run, it traps instead of exiting.
	if _, err := rt.NewHostModuleBuilder(ModuleFledge).NewFunctionBuilder().
		WithFunc(func(int32) { t.Error("the stand-in's own code called exit") }).Export("exit").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.ExportedFunction("_start").Call(ctx); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("the stand-in's own code ran: %v", err)
	}
	if _, ok := standIn(tu.WasmModule{NoStart: true, MemPages: 1}.Bytes(), [32]byte{}); ok {
		t.Error("a stand-in for a module with no code")
	}
	if _, ok := standIn(a[:len(a)-3], [32]byte{}); ok {
		t.Error("a stand-in for a truncated module")
	}
}

// TestStandInRunsTheModulesCode: once a module has compiled, its entry is
// also its stand-in's, and a run loads it through the stand-in (the
// module's own entry gone, the run still exits as the module does, and
// does not compile the module again). Without the stand-in's entry, a run
// compiles nothing of the stand-in: it loads the module itself, exits as
// the module does, and files the stand-in again.
func TestStandInRunsTheModulesCode(t *testing.T) {
	dir := t.TempDir()
	mod := exitModule(3)
	if err := Check(context.Background(), mod, dir); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(mod)
	modDir := filepath.Join(dir, WazeroVersion, hex.EncodeToString(sum[:]))
	own := moduleEntries(t, dir)
	si := standIns(t, dir)
	if len(own) != 1 || len(si) != 1 {
		t.Fatalf("after a compile: module entries %v, stand-ins %v; want one of each", own, si)
	}
	sameFile := func() bool {
		a, errA := os.Stat(own[0])
		b, errB := os.Stat(si[0])
		return errA == nil && errB == nil && os.SameFile(a, b)
	}
	if !sameFile() {
		t.Fatal("the stand-in's entry is not the module's")
	}
	exit := func(what string) {
		t.Helper()
		forgetCaches()
		inst, err := Start(Config{Module: mod, CacheDir: dir, Args: []string{"cmd"}})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		inst.Stdin().Close()
		select {
		case <-inst.Exited():
		case <-time.After(20 * time.Second):
			inst.Stop(true)
			t.Fatalf("%s: the instance did not end", what)
		}
		if code, _, f := inst.Result(); code != 3 || f != nil {
			t.Fatalf("%s: exit %d, %v; want 3, the module's own code", what, code, f)
		}
	}

	if err := os.Remove(own[0]); err != nil {
		t.Fatal(err)
	}
	exit("the module's own entry gone")
	if _, err := os.Stat(own[0]); err == nil {
		t.Error("the module was compiled, not loaded through its stand-in")
	}
	if rec := record(modDir, hex.EncodeToString(sum[:])); len(rec.sums) != 1 || rec.standIn == "" {
		t.Errorf("the record after the run: %+v, want the stand-in's entry alone", rec)
	}

	// Back to both entries, then the stand-in's gone.
	forgetCaches()
	if err := os.RemoveAll(modDir); err != nil {
		t.Fatal(err)
	}
	if err := Check(context.Background(), mod, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(si[0]); err != nil {
		t.Fatal(err)
	}
	exit("the stand-in's entry gone")
	if !sameFile() {
		t.Error("the stand-in was not filed again as the module's entry")
	}
}

// TestStandInMissCompilesNothing: asked for a stand-in that has no cache
// entry, wazero compiles nothing and caches nothing (the context is
// cancelled before it starts): what keeps a stand-in's own code from ever
// running.
func TestStandInMissCompilesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mod := exitModule(3)
	c, err := cacheForFresh(dir, mod)
	if err != nil {
		t.Fatal(err)
	}
	c.standIn = "wazero/none" // as a record naming an entry now gone
	rt := wazero.NewRuntimeWithConfig(ctx, runtimeConfig(c.cc))
	defer rt.Close(ctx)
	if cm, _ := loadStandIn(ctx, rt, c, mod); cm != nil {
		t.Fatal("a stand-in with no entry loaded")
	}
	if c.hasStandIn() {
		t.Error("the stand-in that failed to load is still used")
	}
	if found, err := entries(c.dir); err != nil || len(found) != 0 {
		t.Errorf("a stand-in with no entry left entries %v, %v: it was compiled", found, err)
	}
}

// withData is module with its data section replaced by segs, each active
// in memory 0 at an i32.const offset (or, passive, without one).
func withData(t *testing.T, module []byte, segs []dataSeg) []byte {
	t.Helper()
	var sec []byte
	sec = binary.AppendUvarint(sec, uint64(len(segs)))
	for _, s := range segs {
		if s.passive {
			sec = append(sec, 1)
		} else {
			sec = append(sec, 0)
			sec = append(sec, tu.I32Const(s.at)...)
			sec = append(sec, opEnd)
		}
		sec = binary.AppendUvarint(sec, uint64(len(s.bytes)))
		sec = append(sec, s.bytes...)
	}
	return withRawData(t, module, sec)
}

// withRawData is module with the contents of its data section replaced by
// sec.
func withRawData(t testing.TB, module, sec []byte) []byte {
	t.Helper()
	out := append([]byte(nil), module[:8]...)
	r := reader{b: module, off: 8}
	replaced := false
	for r.off < len(r.b) {
		start := r.off
		id, _ := r.byte()
		size, err := r.u32()
		if err != nil {
			t.Fatal(err)
		}
		r.off += size
		if id != sectionData {
			out = append(out, module[start:r.off]...)
			continue
		}
		out = append(out, sectionData)
		out = binary.AppendUvarint(out, uint64(len(sec)))
		out = append(out, sec...)
		replaced = true
	}
	if !replaced {
		t.Fatal("the module has no data section to replace")
	}
	return out
}

type dataSeg struct {
	at      int32
	bytes   string
	passive bool
}

// dataSection returns the contents of module's data section.
func dataSection(module []byte) []byte {
	r := reader{b: module, off: 8}
	for r.off < len(r.b) {
		id, _ := r.byte()
		size, _ := r.u32()
		if id == sectionData {
			return module[r.off : r.off+size]
		}
		r.off += size
	}
	return nil
}

// TestStandInLeavesDataToTheRun: the stand-in has no data section, and
// its memory once the run has written the module's data (writeData) is the
// module's: segments out of order, overlapping, empty, at the end of
// memory; a segment past the end fails both. A passive segment, a data
// count section (code may name segments by index) or a start section (it
// runs before the run writes) leave the data section to wazero, as it is.
func TestStandInLeavesDataToTheRun(t *testing.T) {
	ctx := context.Background()
	base := tu.WasmModule{MemPages: 1, Data: "x"}.Bytes()
	memory := func(module, data []byte) ([]byte, error) { return memoryAfter(ctx, module, data) }
	standInOf := func(what string, mod []byte) ([]byte, []byte) {
		t.Helper()
		si, ok := standIn(mod, sha256.Sum256(mod))
		if !ok {
			t.Fatalf("%s: no stand-in", what)
		}
		data, ok := moduleData(mod)
		if !ok || !bytes.Equal(data, dataSection(mod)) {
			t.Fatalf("%s: the run would not write the data", what)
		}
		if d := dataSection(si); d != nil {
			t.Errorf("%s: the stand-in has a data section of %d bytes", what, len(d))
		}
		return si, data
	}

	mod := withData(t, base, []dataSeg{
		{at: 5000, bytes: "later"}, {at: 10, bytes: "abcd"}, {at: 12, bytes: "XY"}, {at: 14, bytes: "d"},
		{at: 4000, bytes: "e"}, {at: 65535, bytes: "z"}, {at: 30000, bytes: ""}, {at: 5002, bytes: "\x00"},
	})
	si, segs := standInOf("segments", mod)
	want, err := memory(mod, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := memory(si, segs); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the stand-in's memory once the data is written differs from the module's (%v)", err)
	}
	if !bytes.Equal(want[10:16], []byte("abXYd\x00")) || want[5002] != 0 {
		t.Errorf("the module's memory: %q ... %q: the test's segments do not overlap as meant", want[10:16], want[5000:5005])
	}

	past := withData(t, base, []dataSeg{{at: 10, bytes: "ok"}, {at: 65534, bytes: "abc"}})
	si, segs = standInOf("a segment past the end", past)
	if _, err := memory(past, nil); err == nil {
		t.Fatal("the module with a segment past the end of memory instantiated")
	}
	if _, err := memory(si, segs); err == nil {
		t.Error("the stand-in of a module with a segment past the end of memory started")
	}

	for _, tc := range []struct {
		what string
		mod  []byte
	}{
		{"a passive segment", withData(t, base, []dataSeg{{at: 10, bytes: "abc"}, {passive: true, bytes: "p"}})},
		{"a data count section", withSection(withData(t, base, []dataSeg{{at: 10, bytes: "a"}, {at: 12, bytes: "b"}}), sectionDataCount, []byte{2})},
		{"a start section", withSection(base, sectionStart, []byte{0})},
	} {
		si, ok := standIn(tc.mod, sha256.Sum256(tc.mod))
		if !ok {
			t.Fatalf("%s: no stand-in", tc.what)
		}
		if !bytes.Equal(dataSection(si), dataSection(tc.mod)) {
			t.Errorf("%s: the stand-in's data section is not the module's", tc.what)
		}
		if _, ok := moduleData(tc.mod); ok {
			t.Errorf("%s: the run would write the data itself", tc.what)
		}
	}
}

// memoryAfter instantiates module (wazero's interpreter, no start
// function) and writes data into its memory as a run does (writeData):
// the memory then, or the first error.
func memoryAfter(ctx context.Context, module, data []byte) ([]byte, error) {
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	m, err := rt.InstantiateWithConfig(ctx, module, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		return nil, err
	}
	if err := writeData(m.Memory(), data); err != nil {
		return nil, err
	}
	b, _ := m.Memory().Read(0, m.Memory().Size())
	return bytes.Clone(b), nil
}

// FuzzWriteData: for any data section the run would write itself, the
// module's memory as wazero leaves it, and the stand-in's once the run has
// written the data, are the same, or both fail to start.
func FuzzWriteData(f *testing.F) {
	base := tu.WasmModule{MemPages: 1, Data: "x"}.Bytes()
	f.Add(dataSection(base))
	f.Add([]byte{0})
	f.Add([]byte{2, 0, 0x41, 0x0a, 0x0b, 2, 'a', 'b', 0, 0x41, 0x0b, 0x0b, 1, 'c'})
	f.Add([]byte{2, 0, 0x41, 0xff, 0xff, 0x03, 0x0b, 1, 'z', 0, 0x41, 0x7f, 0x0b, 1, 'n'})
	f.Add([]byte{1, 0, 0x41, 0x80, 0x80, 0x04, 0x0b, 0})
	f.Add([]byte{1, 1, 1, 'p'})
	f.Fuzz(func(t *testing.T, sec []byte) {
		mod := withRawData(t, base, sec)
		data, ok := moduleData(mod)
		if !ok {
			return
		}
		si, ok := standIn(mod, sha256.Sum256(mod))
		if !ok || dataSection(si) != nil {
			t.Fatalf("the stand-in of a module whose data the run writes has data (%v)", ok)
		}
		ctx := context.Background()
		want, errMod := memoryAfter(ctx, mod, nil)
		got, errSI := memoryAfter(ctx, si, data)
		if (errMod == nil) != (errSI == nil) || !bytes.Equal(got, want) {
			t.Fatalf("the module starts: %v; the stand-in with the data written: %v (memory the same: %v)", errMod, errSI, bytes.Equal(got, want))
		}
	})
}

// withSection inserts section id, holding contents, where it belongs:
// before the code section (a data count section) or before the element
// section (a start section; the test modules have none, so before code).
func withSection(module []byte, id byte, contents []byte) []byte {
	out := append([]byte(nil), module[:8]...)
	r := reader{b: module, off: 8}
	for r.off < len(r.b) {
		start := r.off
		sid, _ := r.byte()
		size, _ := r.u32()
		r.off += size
		if sid == sectionCode {
			out = append(out, id)
			out = binary.AppendUvarint(out, uint64(len(contents)))
			out = append(out, contents...)
		}
		out = append(out, module[start:r.off]...)
	}
	return out
}

// TestStandInFiledOnlyForOneEntry: the stand-in is filed when every entry
// in the module's directory holds the same (copies from an older stand-in
// included), and not when one differs (compiled for another CPU, in a
// home shared between machines): which one the module loaded is unknown.
func TestStandInFiledOnlyForOneEntry(t *testing.T) {
	ctx := context.Background()
	mod := exitModule(3)
	for _, tc := range []struct {
		what  string
		other func(entry []byte) []byte
		filed bool
	}{
		{"a copy of the entry", func(e []byte) []byte { return e }, true},
		{"an entry that differs", func(e []byte) []byte { e[len(e)-1] ^= 0x55; return e }, false},
	} {
		dir := t.TempDir()
		if err := Check(ctx, mod, dir); err != nil {
			t.Fatal(err)
		}
		own, si := moduleEntries(t, dir), standIns(t, dir)
		if len(own) != 1 || len(si) != 1 {
			t.Fatalf("entries %v, stand-ins %v", own, si)
		}
		if err := os.Remove(si[0]); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(own[0])
		if err != nil {
			t.Fatal(err)
		}
		other := own[0] + "-other"
		if err := os.WriteFile(other, tc.other(data), 0o600); err != nil {
			t.Fatal(err)
		}
		// Bound by the record, as a compile on the other machine would.
		sum, _, err := entrySum(other)
		if err != nil {
			t.Fatal(err)
		}
		modDir := filepath.Dir(filepath.Dir(other))
		rel, _ := filepath.Rel(modDir, other)
		f, err := os.OpenFile(filepath.Join(modDir, bindingFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "%s %s\n", sum, filepath.ToSlash(rel))
		f.Close()
		c, err := cacheForFresh(dir, mod)
		if err != nil {
			t.Fatal(err)
		}
		c.standIn = ""
		c.fileStandIn(ctx, mod)
		_, err = os.Stat(si[0])
		if filed := err == nil && c.hasStandIn(); filed != tc.filed {
			t.Errorf("with %s: stand-in filed %v, want %v", tc.what, filed, tc.filed)
		}
	}
}

package wasmhost

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
)

// TestCompilationCacheKeys: an entry per module content, in a directory
// per wazero version; a second compile of the same module adds nothing and
// a corrupt entry is compiled again.
// TestWazeroVersionMatchesGoMod keeps the cache's version directory honest.
func TestWazeroVersionMatchesGoMod(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "github.com/tetratelabs/wazero "+WazeroVersion+"\n") {
		t.Fatalf("go.mod does not require wazero %s: update WazeroVersion", WazeroVersion)
	}
}

func TestCompilationCacheKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := tu.WasmModule{MemPages: 1, Start: append(tu.I32Const(1), tu.OpDrop)}
	b := a
	b.Start = append(tu.I32Const(2), tu.OpDrop) // one byte different
	entries := func() []string {
		t.Helper()
		return moduleEntries(t, dir)
	}
	ctx := context.Background()
	if err := Check(ctx, a.Bytes(), dir); err != nil {
		t.Fatal(err)
	}
	first := entries()
	if len(first) != 1 {
		t.Fatalf("entries after one module: %v", first)
	}
	if !strings.Contains(first[0], string(filepath.Separator)+WazeroVersion+string(filepath.Separator)) {
		t.Errorf("cache entry %s is not under a directory named for the wazero version", first[0])
	}
	// Another process compiling the same module finds it.
	forgetCaches()
	before, _ := os.Stat(first[0])
	if err := Check(ctx, a.Bytes(), dir); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(first[0]); len(entries()) != 1 || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the same module was compiled again: %v", entries())
	}
	if err := Check(ctx, b.Bytes(), dir); err != nil {
		t.Fatal(err)
	}
	if len(entries()) != 2 {
		t.Errorf("a changed module shares an entry: %v", entries())
	}
	// A damaged entry fails its checksum and is replaced.
	if err := os.WriteFile(first[0], []byte("WAZEVO garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	forgetCaches()
	if err := Check(ctx, a.Bytes(), dir); err != nil {
		t.Fatalf("a corrupt cache entry broke the compile: %v", err)
	}
	if data, _ := os.ReadFile(first[0]); string(data) == "WAZEVO garbage" {
		t.Error("the corrupt entry was kept")
	}
}

// forgetCaches makes the next use of each cache directory read it as a new
// process would.
func forgetCaches() {
	caches.Lock()
	caches.m = nil
	caches.Unlock()
}

// An entry moved to another module's place is never run: swapping two
// modules' entries (as files, or as directories) leaves each module
// running its own code, recompiled.
func TestCompilationCacheEntriesAreBound(t *testing.T) {
	dir := t.TempDir()
	exitWith := func(code int32) []byte {
		return tu.WasmModule{Imports: []tu.WasmImport{fExit}, MemPages: 1, Start: seq(tu.I32Const(code), call(0))}.Bytes()
	}
	a, b := exitWith(3), exitWith(4)
	runs := func() (int, int) {
		t.Helper()
		forgetCaches()
		codes := [2]int{}
		for i, m := range [][]byte{a, b} {
			inst, err := Start(Config{Module: m, CacheDir: dir, Args: []string{"cmd"}})
			if err != nil {
				t.Fatal(err)
			}
			inst.Stdin().Close()
			select {
			case <-inst.Exited():
			case <-time.After(20 * time.Second):
				inst.Stop(true)
				t.Fatal("the instance did not end")
			}
			codes[i], _, _ = inst.Result()
		}
		return codes[0], codes[1]
	}
	// Each module's entry is the file its first run added.
	files := func() map[string]bool {
		t.Helper()
		m := map[string]bool{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && d.Name() != bindingFile && d.Name() != standInFile {
				m[p] = true
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range standIns(t, dir) {
			delete(m, f)
		}
		return m
	}
	var added [2]string
	for i, m := range [][]byte{a, b} {
		before := files()
		if err := Check(context.Background(), m, dir); err != nil {
			t.Fatal(err)
		}
		for f := range files() {
			if !before[f] {
				added[i] = f
			}
		}
	}
	ea, eb := added[0], added[1]
	if ea == "" || eb == "" {
		t.Fatalf("no cache entries: %q, %q", ea, eb)
	}
	if ca, cb := runs(); ca != 3 || cb != 4 {
		t.Fatalf("exit codes %d, %d before any swap", ca, cb)
	}
	swap := func(x, y string) {
		t.Helper()
		tmp := x + ".swap"
		for _, mv := range [][2]string{{x, tmp}, {y, x}, {tmp, y}} {
			if err := os.Rename(mv[0], mv[1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The entry files, each under the other's name.
	swap(ea, eb)
	if ca, cb := runs(); ca != 3 || cb != 4 {
		t.Errorf("with the entries swapped, the modules exit %d and %d, want 3 and 4", ca, cb)
	}
	// The entries moved into each other's directory, under their own name.
	da, db := filepath.Dir(filepath.Dir(ea)), filepath.Dir(filepath.Dir(eb))
	swap(da, db)
	if ca, cb := runs(); ca != 3 || cb != 4 {
		t.Errorf("with the module directories swapped, the modules exit %d and %d, want 3 and 4", ca, cb)
	}
}

// The bounds scan is skipped only on the word of the module's own record,
// which a fledge writes after the module passed the scan under the bounds
// the record names: a module whose bytes differ, tighter bounds or another
// scan revision are scanned again.
func TestBoundsScanSkippedOnlyOnItsRecord(t *testing.T) {
	old := Bounds
	defer func() { Bounds = old }()
	dir := t.TempDir()
	ctx := context.Background()
	mod := tu.WasmModule{MemPages: 1, Start: blocks(2000, true, nil)}.Bytes()
	check := func(m []byte) error {
		forgetCaches()
		return Check(ctx, m, dir)
	}
	refused := func(what string, err error) {
		t.Helper()
		var me *ModuleError
		if !errors.As(err, &me) || !me.Bound || !strings.Contains(me.Msg, "2000 blocks") {
			t.Errorf("%s: err = %v, want the blocks bound", what, err)
		}
	}
	sum := sha256.Sum256(mod)
	modDir := filepath.Join(dir, WazeroVersion, hex.EncodeToString(sum[:]))
	rec := filepath.Join(modDir, bindingFile)
	setScanned := func(line string) {
		t.Helper()
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if !strings.HasPrefix(lines[1], "scanned ") {
			t.Fatalf("the record has no scanned line:\n%s", data)
		}
		lines[1] = line
		if err := os.WriteFile(rec, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if err := check(mod); err != nil {
		t.Fatal(err)
	}
	Bounds.Blocks = 1000
	refused("a record of looser bounds", check(mod))
	// The line a fledge with these bounds writes after the scan.
	setScanned(scannedLine())
	if err := check(mod); err != nil {
		t.Errorf("a record naming these bounds did not stand for the scan: %v", err)
	}
	setScanned(strings.Replace(scannedLine(), fmt.Sprint(scanRevision), fmt.Sprint(scanRevision-1), 1))
	refused("a record of another scan revision", check(mod))

	// The record and entries of a module, moved to the place of one whose
	// bytes differ, vouch for nothing.
	setScanned(scannedLine())
	other := tu.WasmModule{MemPages: 2, Start: blocks(2000, true, nil)}.Bytes()
	osum := sha256.Sum256(other)
	if err := os.Rename(modDir, filepath.Join(dir, WazeroVersion, hex.EncodeToString(osum[:]))); err != nil {
		t.Fatal(err)
	}
	refused("another module's record", check(other))
}

// A damaged entry is never run, wherever the damage is: in its native code
// (which wazero checks against the entry's CRC-32C, and fledge then deletes
// the entry and compiles again) or anywhere else (fledge's record refuses
// it before wazero reads it).
func TestCompilationCacheDamagedEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mod := tu.WasmModule{Imports: []tu.WasmImport{fExit}, MemPages: 1, Start: seq(tu.I32Const(3), call(0))}.Bytes()
	if err := Check(context.Background(), mod, dir); err != nil {
		t.Fatal(err)
	}
	found := moduleEntries(t, dir)
	if len(found) != 1 {
		t.Fatalf("entries: %v", found)
	}
	entry := found[0]
	f, err := os.Open(entry)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	length, at, ok := codeSpan(f, fi.Size())
	f.Close()
	if !ok || length == 0 {
		t.Fatalf("the entry's native code was not found (is the layout still wazero's?)")
	}
	good, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string
		at   int64
	}{
		{"the native code's first byte", at},
		{"the native code's last byte", at + length - 1},
		{"the code's CRC-32C", at + length},
		{"the function count", 6 + 1 + int64(good[6])},
		{"a function's offset", at - 9},
		{"the code's length", at - 1},
	} {
		bad := slices.Clone(good)
		bad[tc.at] ^= 0x55
		if err := os.WriteFile(entry, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		forgetCaches()
		inst, err := Start(Config{Module: mod, CacheDir: dir, Args: []string{"cmd"}})
		if err != nil {
			t.Errorf("%s damaged: %v", tc.what, err)
			continue
		}
		inst.Stdin().Close()
		select {
		case <-inst.Exited():
		case <-time.After(20 * time.Second):
			inst.Stop(true)
			t.Fatalf("%s damaged: the instance did not end", tc.what)
		}
		if code, _, f := inst.Result(); code != 3 || f != nil {
			t.Errorf("%s damaged: exit %d, %v; want 3", tc.what, code, f)
		}
		if now, _ := os.ReadFile(entry); bytes.Equal(now, bad) {
			t.Errorf("%s damaged: the entry was kept", tc.what)
		}
	}
}

// Binding after a compile writes nothing when the entries are the ones
// checked before it (a warm run), and hashes a file that replaced one of
// them (wazero writes a new file and renames it into place) rather than
// taking it for the one checked.
func TestCompilationCacheBindHashesNewFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mod := tu.WasmModule{MemPages: 1, Start: append(tu.I32Const(5), tu.OpDrop)}.Bytes()
	if err := Check(context.Background(), mod, dir); err != nil {
		t.Fatal(err)
	}
	c, err := cacheFor(dir, mod)
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(c.dir, bindingFile)
	before, err := os.Stat(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.bind(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(rec); !os.SameFile(before, after) {
		t.Error("binding the entries it had checked rewrote the record")
	}
	if len(c.checked) != 2 {
		t.Fatalf("checked entries (the module's and its stand-in's): %v", c.checked)
	}
	for rel := range c.checked {
		path := filepath.Join(c.dir, filepath.FromSlash(rel))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)-1] ^= 0x55 // past the native code: its hash changes
		tmp := path + ".new"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		if err := c.bind(); err != nil {
			t.Fatal(err)
		}
		sum, _, err := entrySum(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := record(c.dir, c.id).sums[rel]; got != sum {
			t.Errorf("the record binds %s to %s, not the file now there (%s)", rel, got, sum)
		}
	}
}

// A record of a fledge that hashed entries whole still binds them, once:
// the module is not compiled again, and the record is rewritten as entrySum
// hashes them, with the bounds scan it vouches for.
func TestCompilationCacheWholeFileRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mod := tu.WasmModule{MemPages: 1, Start: append(tu.I32Const(6), tu.OpDrop)}.Bytes()
	if err := Check(context.Background(), mod, dir); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(mod)
	modDir := filepath.Join(dir, WazeroVersion, hex.EncodeToString(sum[:]))
	// A fledge that hashed entries whole filed no stand-in.
	for _, f := range standIns(t, dir) {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	found, err := entries(modDir)
	if err != nil || len(found) != 1 {
		t.Fatalf("entries: %v, %v", found, err)
	}
	old := "module " + hex.EncodeToString(sum[:]) + "\n"
	var entry string
	for rel := range found {
		entry = filepath.Join(modDir, filepath.FromSlash(rel))
		old += wholeSum(entry) + " " + rel + "\n"
	}
	if err := os.WriteFile(filepath.Join(modDir, bindingFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(entry)
	c, err := cacheForFresh(dir, mod)
	if err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(entry); err != nil || !os.SameFile(before, after) {
		t.Fatalf("the entry an older record bound was deleted: %v", err)
	}
	if !c.needsScan() {
		t.Error("an older record, which names no scan, stood for one")
	}
	if err := Check(context.Background(), mod, dir); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(entry); !os.SameFile(before, after) {
		t.Error("the module was compiled again")
	}
	rec := record(modDir, hex.EncodeToString(sum[:]))
	es, _, _ := entrySum(entry)
	if rel, _ := filepath.Rel(modDir, entry); rec.sums[filepath.ToSlash(rel)] != es || rec.scanned != scannedLine() {
		t.Errorf("the record was not rewritten: %+v", rec)
	}
}

// cacheForFresh is cacheFor as a new process runs it, for this directory
// alone (forgetCaches would race with the other tests).
func cacheForFresh(dir string, module []byte) (*moduleCache, error) {
	sum := sha256.Sum256(module)
	real, _ := filepath.EvalSymlinks(dir)
	caches.Lock()
	delete(caches.m, filepath.Join(real, WazeroVersion, hex.EncodeToString(sum[:])))
	caches.Unlock()
	return cacheFor(dir, module)
}

// moduleEntries lists the cache entries under dir that are modules' own,
// not their stand-ins'.
func moduleEntries(t *testing.T, dir string) []string {
	t.Helper()
	all, _ := filepath.Glob(filepath.Join(dir, WazeroVersion, "*", "*", "*"))
	skip := map[string]bool{}
	for _, f := range standIns(t, dir) {
		skip[f] = true
	}
	var m []string
	for _, f := range all {
		if !skip[f] && !strings.HasSuffix(f, ".tmp") {
			m = append(m, f)
		}
	}
	return m
}

// standIns lists the stand-in entries the records under dir name.
func standIns(t *testing.T, dir string) []string {
	t.Helper()
	recs, _ := filepath.Glob(filepath.Join(dir, WazeroVersion, "*", bindingFile))
	var m []string
	for _, rec := range recs {
		modDir := filepath.Dir(rec)
		if b := record(modDir, filepath.Base(modDir)); b.standIn != "" {
			m = append(m, filepath.Join(modDir, filepath.FromSlash(b.standIn)))
		}
	}
	return m
}

// TestCrashLeftoversSwept: what a crash mid-compile leaves, a scratch
// cache of the stand-in's and a temporary entry, is deleted by the next
// run once it is older than any live compile; younger ones, which a
// compile in another process may be writing, are kept.
func TestCrashLeftoversSwept(t *testing.T) {
	dir := t.TempDir()
	mod := exitModule(3)
	if err := Check(context.Background(), mod, dir); err != nil {
		t.Fatal(err)
	}
	own := moduleEntries(t, dir)
	if len(own) != 1 {
		t.Fatalf("module entries %v", own)
	}
	root := filepath.Join(dir, WazeroVersion)
	if left, _ := filepath.Glob(filepath.Join(root, scratchPrefix+"*")); len(left) != 0 {
		t.Fatalf("a compile left scratch caches %v", left)
	}
	old := time.Now().Add(-staleAfter() - time.Minute)
	var stale, young []string
	for i, p := range []string{
		filepath.Join(root, scratchPrefix+"1", "wazero", "entry"),
		filepath.Join(root, scratchPrefix+"2", "wazero", "entry"),
		own[0] + ".123.tmp",
		own[0] + "-b.456.tmp",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("half an entry"), 0o600); err != nil {
			t.Fatal(err)
		}
		top := p
		if rel, _ := filepath.Rel(root, p); strings.HasPrefix(rel, scratchPrefix) {
			top = filepath.Join(root, strings.Split(filepath.ToSlash(rel), "/")[0])
		}
		if i%2 == 0 {
			if err := os.Chtimes(top, old, old); err != nil {
				t.Fatal(err)
			}
			stale = append(stale, top)
		} else {
			young = append(young, top)
		}
	}
	if _, err := cacheForFresh(dir, mod); err != nil {
		t.Fatal(err)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s, stale, is still there (%v)", p, err)
		}
	}
	for _, p := range young {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s, young, was deleted (%v)", p, err)
		}
	}
	if _, err := os.Stat(own[0]); err != nil {
		t.Errorf("the module's entry went with the sweep: %v", err)
	}
}

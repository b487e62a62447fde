package wasmhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		m, _ := filepath.Glob(filepath.Join(dir, WazeroVersion, "*", "*"))
		return m
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
	caches.Lock()
	delete(caches.m, dir)
	caches.Unlock()
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
	caches.Lock()
	delete(caches.m, dir)
	caches.Unlock()
	if err := Check(ctx, a.Bytes(), dir); err != nil {
		t.Fatalf("a corrupt cache entry broke the compile: %v", err)
	}
	if data, _ := os.ReadFile(first[0]); string(data) == "WAZEVO garbage" {
		t.Error("the corrupt entry was kept")
	}
}

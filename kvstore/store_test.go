package kvstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func str(s string) *string { return &s }

func TestStoreLimits(t *testing.T) {
	t.Parallel()
	s := New(filepath.Join(t.TempDir(), "data", "p", "store.json"))
	var limit *LimitError
	for _, key := range []string{"", strings.Repeat("k", 257), "a\nb", "tab\there", "del\x7f"} {
		if err := s.Set(key, str("v")); !errors.As(err, &limit) {
			t.Errorf("Set(%q) = %v, want a limit error", key, err)
		}
	}
	if err := s.Set(strings.Repeat("k", 256), str("ok")); err != nil {
		t.Errorf("256-byte key: %v", err)
	}
	if err := s.Set("big", str(strings.Repeat("v", 64<<10+1))); !errors.As(err, &limit) {
		t.Errorf("oversized value: %v", err)
	}
	if err := s.Set("max", str(strings.Repeat("v", 64<<10))); err != nil {
		t.Errorf("64 KiB value: %v", err)
	}
	// 1 MiB file limit: 16 values of 64 KiB cannot all fit.
	var err error
	for i := 0; i < 16 && err == nil; i++ {
		err = s.Set(fmt.Sprintf("v%d", i), str(strings.Repeat("x", 64<<10)))
	}
	if !errors.As(err, &limit) {
		t.Errorf("file limit not enforced: %v", err)
	}
	if fi, _ := os.Stat(s.path); fi.Size() > MaxFile {
		t.Errorf("store file is %d bytes", fi.Size())
	}
}

func TestStoreKeyCountDeleteAndCorruption(t *testing.T) {
	t.Parallel()
	s := New(filepath.Join(t.TempDir(), "store.json"))
	for i := 0; i < MaxKeys; i++ {
		if err := s.Set(fmt.Sprintf("k%d", i), str("v")); err != nil {
			t.Fatal(err)
		}
	}
	var limit *LimitError
	if err := s.Set("one-more", str("v")); !errors.As(err, &limit) {
		t.Errorf("257th key: %v", err)
	}
	if err := s.Set("k0", str("replaced")); err != nil {
		t.Errorf("replacing a key at the limit: %v", err)
	}
	if err := s.Set("k1", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("k1"); ok {
		t.Error("deleted key still there")
	}
	if v, ok, _ := s.Get("k0"); !ok || v != "replaced" {
		t.Errorf("k0 = %q %v", v, ok)
	}
	// A corrupt file is moved aside, not silently lost.
	if err := os.WriteFile(s.path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get("k0"); err == nil {
		t.Error("reading a corrupt store did not fail")
	}
	if err := s.Set("fresh", str("v")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(s.path + ".corrupt"); string(data) != "{not json" {
		t.Errorf("corrupt file not kept aside: %q", data)
	}
	if v, ok, _ := s.Get("fresh"); !ok || v != "v" {
		t.Errorf("fresh = %q %v", v, ok)
	}
}

func TestStoreConcurrentWriters(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "store.json")
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New(path) // separate values, as separate runs would be
			for i := 0; i < 25; i++ {
				if err := s.Set(fmt.Sprintf("w%d-%d", w, i), str("v")); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	m, err := New(path).read()
	if err != nil || len(m) != 100 {
		t.Errorf("%d keys (%v), want 100: a write was lost", len(m), err)
	}
}

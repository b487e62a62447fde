package kvstore

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// rustStore lays out a store fledge has not used yet beside a state.json
// the Rust fledge wrote (serde_json's pretty form).
func rustStore(t *testing.T, state string) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	legacy := filepath.Join(dir, "plugins", "p", "state.json")
	if err := os.MkdirAll(filepath.Dir(legacy), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(legacy, []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	return &Store{path: filepath.Join(dir, "plugins", ".data", "p", "store.json"), legacy: legacy}, legacy
}

const rustState = "{\n  \"last_user\": \"ada\",\n  \"count\": \"3\"\n}"

func TestAdoptOnLoad(t *testing.T) {
	t.Parallel()
	s, legacy := rustStore(t, rustState)
	if v, ok, err := s.Get("last_user"); err != nil || !ok || v != "ada" {
		t.Fatalf("Get(last_user) = %q, %v, %v; want the Rust fledge's ada", v, ok, err)
	}
	if data, err := os.ReadFile(s.path); err != nil || string(data) != rustState {
		t.Errorf("store file = %q, %v; want state.json's bytes", data, err)
	}
	if data, err := os.ReadFile(legacy); err != nil || string(data) != rustState {
		t.Errorf("state.json = %q, %v; want it left as it was", data, err)
	}
	// Taken over once: from then on the store file alone counts.
	if err := os.WriteFile(legacy, []byte(`{"last_user":"later"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := s.Get("last_user"); v != "ada" {
		t.Errorf("after the take-over, Get = %q: state.json was read again", v)
	}
}

func TestAdoptOnStore(t *testing.T) {
	t.Parallel()
	s, _ := rustStore(t, rustState)
	if err := s.Set("new", str("1")); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"last_user": "ada", "count": "3", "new": "1"} {
		if v, ok, err := s.Get(k); err != nil || !ok || v != want {
			t.Errorf("Get(%s) = %q, %v, %v; want %q", k, v, ok, err, want)
		}
	}
	// A store file that exists is never overwritten by a take-over.
	if err := s.Adopt(); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := s.Get("new"); v != "1" {
		t.Errorf("Adopt replaced an existing store: new = %q", v)
	}
}

// A corrupt state.json (Rust read it as empty) is taken over as it is and
// then moved aside like any corrupt store, so its bytes are never lost.
func TestAdoptCorrupt(t *testing.T) {
	t.Parallel()
	s, _ := rustStore(t, "{not json")
	if _, _, err := s.Get("k"); err == nil {
		t.Error("a corrupt state.json loaded without an error")
	}
	if err := s.Set("k", str("v")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(s.path + ".corrupt"); string(data) != "{not json" {
		t.Errorf("store.json.corrupt = %q, want the Rust file's bytes", data)
	}
}

func TestAdoptRefusesWhatRustCouldNotHaveWritten(t *testing.T) {
	t.Parallel()
	big, _ := rustStore(t, `{"k":"`+strings.Repeat("x", MaxFile)+`"}`)
	if _, ok, err := big.Get("k"); ok || err != nil {
		t.Errorf("an oversized state.json: ok %v, %v; want it ignored", ok, err)
	}
	if _, err := os.Stat(big.path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an oversized state.json was copied: %v", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	// A symlink could point at any file of the user's: never followed.
	s, legacy := rustStore(t, "")
	secret := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(secret, []byte(`{"token":"hunter2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(legacy); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, legacy); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get("token"); ok || err != nil {
		t.Errorf("a symlinked state.json was read: %q %v %v", v, ok, err)
	}
	if err := s.Set("k", str("v")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("token"); ok {
		t.Error("a symlinked state.json was taken over by a store")
	}
}

func TestNoLegacy(t *testing.T) {
	t.Parallel()
	s := New(filepath.Join(t.TempDir(), "store.json"))
	if _, ok, err := s.Get("k"); ok || err != nil {
		t.Errorf("Get on an empty store: %v %v", ok, err)
	}
	if err := s.Adopt(); err != nil {
		t.Error(err)
	}
}

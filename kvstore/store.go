package kvstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/rogpeppe/go-internal/renameio"

	"github.com/corvidlabs/fledge-go/home"
)

// Limits, as the Rust fledge enforces them.
const (
	MaxKey   = 256      // bytes in a key (at least 1)
	MaxValue = 64 << 10 // bytes in a value
	MaxKeys  = 256      // keys in one plugin's store
	MaxFile  = 1 << 20  // bytes of the store file
)

// Store is one plugin's persistent key/value store. Reads take no lock.
type Store struct {
	path string
	// legacy is the Rust fledge's state.json, taken over while path does
	// not exist ("" for none).
	legacy string
}

// ForPlugin returns the named plugin's store, which takes over the Rust
// fledge's state.json in its directory.
func ForPlugin(paths home.Paths, name string) *Store {
	return &Store{path: paths.StoreFile(name), legacy: paths.RustStateFile(name)}
}

// LimitError reports a request outside the limits.
type LimitError struct{ Reason string }

func (e *LimitError) Error() string { return "store: " + e.Reason }

// errCorrupt marks a store file that is not a JSON object of strings.
var errCorrupt = errors.New("store file is corrupt")

// CheckKey returns why key cannot be stored, or nil.
func CheckKey(key string) error {
	if len(key) == 0 || len(key) > MaxKey {
		return &LimitError{Reason: fmt.Sprintf("key must be 1 to %d bytes, got %d", MaxKey, len(key))}
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] == 0x7f {
			return &LimitError{Reason: "key contains a control character"}
		}
	}
	return nil
}

// Get returns the value stored under key.
func (s *Store) Get(key string) (string, bool, error) {
	if err := CheckKey(key); err != nil {
		return "", false, nil // such a key can never have been stored
	}
	m, err := s.read()
	if errors.Is(err, os.ErrNotExist) {
		if err = s.Adopt(); err == nil {
			m, err = s.read()
		}
	}
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	v, ok := m[key]
	return v, ok, nil
}

// Set stores value under key, or deletes key when value is nil. A corrupt
// store file is moved aside (to store.json.corrupt) and replaced, so one
// bad write never disables a plugin's store for good.
func (s *Store) Set(key string, value *string) (err error) {
	if err := CheckKey(key); err != nil {
		return err
	}
	if value != nil && len(*value) > MaxValue {
		return &LimitError{Reason: fmt.Sprintf("value for %q is %d bytes, more than %d", key, len(*value), MaxValue)}
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.adoptLocked(); err != nil {
		return err
	}

	m, err := s.read()
	switch {
	case errors.Is(err, os.ErrNotExist):
		m, err = map[string]string{}, nil
	case errors.Is(err, errCorrupt):
		if rerr := os.Rename(s.path, s.path+".corrupt"); rerr != nil {
			return fmt.Errorf("store: %w (and moving it aside failed: %v)", err, rerr)
		}
		m, err = map[string]string{}, nil
	}
	if err != nil {
		return err
	}
	if value == nil {
		if _, ok := m[key]; !ok {
			return nil
		}
		delete(m, key)
	} else {
		if _, ok := m[key]; !ok && len(m) >= MaxKeys {
			return &LimitError{Reason: fmt.Sprintf("the store already holds %d keys, the most allowed", MaxKeys)}
		}
		m[key] = *value
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if len(data) > MaxFile {
		return &LimitError{Reason: fmt.Sprintf("the store would grow to %d bytes, more than %d", len(data), MaxFile)}
	}
	if err := renameio.WriteFile(s.path, data); err != nil {
		return fmt.Errorf("store: write: %w", err)
	}
	return nil
}

// Adopt takes over the Rust fledge's state.json when the store file does
// not exist yet: its bytes are copied to the store file (the original
// stays), under the store lock. Its format is the store's own (a JSON
// object of strings), so nothing is converted; a corrupt one is kept and
// later moved aside like any corrupt store. Only a regular file of at most
// MaxFile bytes is taken: a symlink (which could point at any file of the
// user's) or anything larger than Rust could have written is left alone.
// With nothing to take over, Adopt does nothing.
func (s *Store) Adopt() error {
	if s.legacy == "" || exists(s.path) || !exists(s.legacy) {
		return nil // the usual case, decided without the lock
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return s.adoptLocked()
}

// adoptLocked is Adopt for a caller holding the lock: it re-checks.
func (s *Store) adoptLocked() error {
	if s.legacy == "" || exists(s.path) {
		return nil
	}
	fi, err := os.Lstat(s.legacy)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxFile {
		return nil
	}
	f, err := os.Open(s.legacy)
	if err != nil {
		return fmt.Errorf("store: take over %s: %w", s.legacy, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return fmt.Errorf("store: take over %s: %w", s.legacy, err)
	}
	if len(data) > MaxFile {
		return nil
	}
	if err := renameio.WriteFile(s.path, data); err != nil {
		return fmt.Errorf("store: take over %s: %w", s.legacy, err)
	}
	return nil
}

// lock takes the store's cross-process lock, creating its directory.
func (s *Store) lock() (func(), error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	unlock, err := lockedfile.MutexAt(s.path + ".lock").Lock()
	if err != nil {
		return nil, fmt.Errorf("store: lock: %w", err)
	}
	return unlock, nil
}

// read loads the whole store, bounded by MaxFile. A missing file is
// os.ErrNotExist; an empty one is an empty store.
func (s *Store) read() (map[string]string, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, fmt.Errorf("store: read: %w", err)
	}
	if len(data) > MaxFile {
		return nil, fmt.Errorf("%w: larger than %d bytes", errCorrupt, MaxFile)
	}
	m := map[string]string{}
	if len(data) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	return m, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

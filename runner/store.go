package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/rogpeppe/go-internal/renameio"
)

// Store limits, as the Rust fledge enforces them.
const (
	MaxStoreKey   = 256      // bytes in a key (at least 1)
	MaxStoreValue = 64 << 10 // bytes in a value
	MaxStoreKeys  = 256      // keys in one plugin's store
	MaxStoreFile  = 1 << 20  // bytes of the store file
)

// Store is one plugin's persistent key/value store: a JSON object of
// strings in a file beside the plugin's installed tree (never inside it).
// Writes are atomic renames made under a cross-process lock with the file
// re-read inside it, so concurrent runs of the same plugin never lose
// each other's keys. Reads take no lock.
type Store struct {
	path string
}

// NewStore returns the store kept in path.
func NewStore(path string) *Store { return &Store{path: path} }

// StoreLimitError reports a store request outside the limits.
type StoreLimitError struct{ Reason string }

func (e *StoreLimitError) Error() string { return "store: " + e.Reason }

// errStoreCorrupt marks a store file that is not a JSON object of strings.
var errStoreCorrupt = errors.New("store file is corrupt")

// CheckKey returns why key cannot be stored, or nil.
func CheckKey(key string) error {
	if len(key) == 0 || len(key) > MaxStoreKey {
		return &StoreLimitError{Reason: fmt.Sprintf("key must be 1 to %d bytes, got %d", MaxStoreKey, len(key))}
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] == 0x7f {
			return &StoreLimitError{Reason: "key contains a control character"}
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
	if value != nil && len(*value) > MaxStoreValue {
		return &StoreLimitError{Reason: fmt.Sprintf("value for %q is %d bytes, more than %d", key, len(*value), MaxStoreValue)}
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	unlock, err := lockedfile.MutexAt(s.path + ".lock").Lock()
	if err != nil {
		return fmt.Errorf("store: lock: %w", err)
	}
	defer unlock()

	m, err := s.read()
	if errors.Is(err, errStoreCorrupt) {
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
		if _, ok := m[key]; !ok && len(m) >= MaxStoreKeys {
			return &StoreLimitError{Reason: fmt.Sprintf("the store already holds %d keys, the most allowed", MaxStoreKeys)}
		}
		m[key] = *value
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if len(data) > MaxStoreFile {
		return &StoreLimitError{Reason: fmt.Sprintf("the store would grow to %d bytes, more than %d", len(data), MaxStoreFile)}
	}
	if err := renameio.WriteFile(s.path, data); err != nil {
		return fmt.Errorf("store: write: %w", err)
	}
	return nil
}

// read loads the whole store, bounded by MaxStoreFile. A missing file is an
// empty store.
func (s *Store) read() (map[string]string, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxStoreFile+1))
	if err != nil {
		return nil, fmt.Errorf("store: read: %w", err)
	}
	if len(data) > MaxStoreFile {
		return nil, fmt.Errorf("%w: larger than %d bytes", errStoreCorrupt, MaxStoreFile)
	}
	m := map[string]string{}
	if len(data) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", errStoreCorrupt, err)
	}
	return m, nil
}

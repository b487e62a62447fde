package testutil

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// cacheKeep is how long a cached file may go unchanged before CacheDir
// removes it.
const cacheKeep = 7 * 24 * time.Hour

var trimmed sync.Map // name -> struct{}: trimmed by this process

// CacheDir returns a directory that keeps, from one test run to the next,
// what tests make from fixed inputs, as the go command's build cache keeps
// compiled packages: wazero's compiled modules, a module rustc built. It is
// fledge-go-tests/name in the user's cache directory ($XDG_CACHE_HOME or
// ~/.cache). ok is false when there is none, or FLEDGE_TEST_CACHE=off:
// callers then make them afresh in a temporary directory.
//
// What is in it must be named by its inputs (a hash of them), so that a
// changed input is a miss, never a stale hit. Files unchanged for a week
// are removed, once per name and process, so the cache does not grow
// without bound as inputs change.
func CacheDir(name string) (dir string, ok bool) {
	if os.Getenv("FLEDGE_TEST_CACHE") == "off" {
		return "", false
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", false
	}
	dir = filepath.Join(base, "fledge-go-tests", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false
	}
	if _, done := trimmed.LoadOrStore(name, struct{}{}); !done {
		trim(dir, time.Now().Add(-cacheKeep))
	}
	return dir, true
}

// trim removes the regular files under dir last changed before cutoff.
func trim(dir string, cutoff time.Time) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().Before(cutoff) {
			os.Remove(path)
		}
		return nil
	})
}

// CachedFile returns the file in CacheDir(name) that build made from the
// inputs, calling build (with a path to write) only when no earlier run
// has. inputs must hold everything the file depends on: the tool's
// version, its flags, the sources. Without a cache directory it builds into
// tmp. The file is shared: copy it before changing it.
func CachedFile(name, tmp string, inputs [][]byte, build func(path string) error) (string, error) {
	dir, ok := CacheDir(name)
	if !ok {
		path := filepath.Join(tmp, name)
		return path, build(path)
	}
	h := sha256.New()
	for _, in := range inputs {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(in))))
		h.Write(in)
	}
	path := filepath.Join(dir, hex.EncodeToString(h.Sum(nil)))
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return path, nil
	}
	// Built under a name of its own and renamed: a concurrent run, or one
	// killed part way, never leaves a partial file at path.
	part, err := os.CreateTemp(dir, ".part-*")
	if err != nil {
		return "", err
	}
	part.Close()
	defer os.Remove(part.Name())
	if err := build(part.Name()); err != nil {
		return "", err
	}
	return path, os.Rename(part.Name(), path)
}

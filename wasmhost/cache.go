package wasmhost

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/renameio"
	"github.com/tetratelabs/wazero"
)

// The compilation cache holds native code, which nothing can check against
// the module it came from. wazero names each entry by a hash of its module
// but does not record it in the entry, so an entry renamed to another's
// name ran as the other module's code. fledge therefore gives each module
// its own directory, named for the SHA-256 of its bytes, and binds the
// entries in it with a record of their own SHA-256 (bindingFile), written
// after wazero adds them. An entry that is not in the record of its
// module's directory (moved or swapped there, damaged, or left by a crash
// before its record) is deleted before wazero can read it, and the module
// is compiled again. Checking costs a SHA-256 of the entries once per
// process (under 50 ms of CPU for a Go plugin's 15 MB of native code).

// bindingFile is the record in a module's cache directory: "module <sha>",
// then "<sha> <path>" for each entry, paths relative to the directory.
const bindingFile = "binding"

// moduleCache is one module's compilation cache.
type moduleCache struct {
	cc wazero.CompilationCache
	// dir is the module's directory ("" for an in-memory cache), id the
	// SHA-256 of its bytes, in hex.
	dir, id string
}

// caches holds one compilation cache per directory for the life of the
// process: wazero keeps what it compiled or read in memory, so each module
// directory is checked, and read or compiled, once per process.
var caches struct {
	sync.Mutex
	m map[string]*moduleCache
}

// cacheFor returns module's cache in dir ("" for an in-memory one),
// deleting, the first time in this process, every entry its record does
// not bind.
func cacheFor(dir string, module []byte) (*moduleCache, error) {
	sum := sha256.Sum256(module)
	id := hex.EncodeToString(sum[:])
	if dir != "" {
		// One cache per real directory: each is checked once per process.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		dir = filepath.Join(dir, WazeroVersion, id)
	}
	caches.Lock()
	defer caches.Unlock()
	if c, ok := caches.m[dir]; ok {
		return c, nil
	}
	c := &moduleCache{dir: dir, id: id}
	if dir == "" {
		c.cc = wazero.NewCompilationCache()
	} else {
		if err := unbound(dir, id); err != nil {
			return nil, fmt.Errorf("wasm compilation cache %s: %w", dir, err)
		}
		var err error
		if c.cc, err = wazero.NewCompilationCacheWithDir(dir); err != nil {
			return nil, fmt.Errorf("wasm compilation cache %s: %w", dir, err)
		}
	}
	if caches.m == nil {
		caches.m = map[string]*moduleCache{}
	}
	caches.m[dir] = c
	return c, nil
}

// entries lists the cache entries under dir with their SHA-256: every
// regular file but the record and wazero's temporary files.
func entries(dir string) (map[string]string, error) {
	found := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return fs.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() || rel == bindingFile || strings.HasSuffix(rel, ".tmp") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		found[filepath.ToSlash(rel)] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	return found, err
}

// record reads dir's record: the entries it binds, if it is id's.
func record(dir, id string) map[string]string {
	data, err := os.ReadFile(filepath.Join(dir, bindingFile))
	if err != nil {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != "module "+id {
		return nil
	}
	bound := map[string]string{}
	for sc.Scan() {
		if sum, path, ok := strings.Cut(sc.Text(), " "); ok {
			bound[path] = sum
		}
	}
	return bound
}

// unbound deletes each entry in dir that dir's record does not bind to id.
func unbound(dir, id string) error {
	found, err := entries(dir)
	if err != nil {
		return err
	}
	bound := record(dir, id)
	for path, sum := range found {
		if bound[path] != sum {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(path))); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

// bind records the entries in the module's directory, once it compiled:
// what wazero just added, or what the record already binds.
func (c *moduleCache) bind() error {
	if c == nil || c.dir == "" {
		return nil
	}
	found, err := entries(c.dir)
	if err != nil || len(found) == 0 {
		return err
	}
	bound := record(c.dir, c.id)
	same := len(bound) == len(found)
	for path, sum := range found {
		same = same && bound[path] == sum
	}
	if same {
		return nil
	}
	var b strings.Builder
	b.WriteString("module " + c.id + "\n")
	for path, sum := range found {
		b.WriteString(sum + " " + path + "\n")
	}
	return renameio.WriteFile(filepath.Join(c.dir, bindingFile), []byte(b.String()))
}

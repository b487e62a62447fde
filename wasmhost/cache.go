package wasmhost

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/renameio"
	"github.com/tetratelabs/wazero"

	"github.com/corvidlabs/fledge-go/internal/bounded"
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
// is compiled again. Checking costs a SHA-256 of the entries, less the
// native code that wazero checks itself (entrySum), once per process:
// binding after the compile hashes only what wazero wrote since (a file
// that is not the one checked).
//
// The record is also the proof that the module passed the bounds scan
// (bounds.go): it is written only after a compile that followed the scan,
// in the directory named for the module's SHA-256, and it names the scan
// and the bounds it held the module to (scannedLine). The scan is a
// function of the module's bytes and those bounds alone, so a run that
// finds the line for its module's SHA-256 skips it; any other record (none,
// another module's, other bounds or another scan) means the scan runs.

// bindingFile is the record in a module's cache directory: "module <sha>",
// then the scannedLine the module passed, if any, then "standin <path>"
// naming the entry filed under the module's stand-in (standin.go), if any,
// then "<sha> <path>" for each entry, paths relative to the directory.
const bindingFile = "binding"

// scanRevision names what the bounds scan measures: raise it whenever
// scanModule changes what it counts or refuses, so that no record written
// by an older scan vouches for a module the new one would refuse.
const scanRevision = 1

// scannedLine is the record's line saying that its module passed the bounds
// scan, as it is now, under the current Bounds.
func scannedLine() string {
	return fmt.Sprintf("scanned %d %+v", scanRevision, Bounds)
}

// moduleCache is one module's compilation cache.
type moduleCache struct {
	cc wazero.CompilationCache
	// dir is the module's directory ("" for an in-memory cache), id the
	// SHA-256 of its bytes, in hex, and sum the same in bytes.
	dir, id string
	sum     [32]byte

	mu sync.Mutex
	// checked are the entries this process found bound and kept, each
	// with its SHA-256 and the file it read.
	checked map[string]checkedEntry
	// scanned is the scannedLine the module passed, as its record or this
	// process saw it ("" if none).
	scanned string
	// standIn is the path of the module's stand-in entry, when the record
	// binds one (or this process made it): "" if none.
	standIn string
}

type checkedEntry struct {
	sum string
	fi  fs.FileInfo
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
	c := &moduleCache{dir: dir, id: id, sum: sum}
	if dir != "" {
		sweepScratch(filepath.Dir(dir))
	}
	if dir == "" {
		c.cc = wazero.NewCompilationCache()
	} else {
		if err := c.unbound(); err != nil {
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

// entries lists the cache entries under dir: every regular file but the
// record, the stored stand-in and temporary files, by path relative to
// dir. Temporary files a crash left (see removeStale) are deleted.
func entries(dir string) (map[string]fs.FileInfo, error) {
	found := map[string]fs.FileInfo{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return fs.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.HasSuffix(rel, ".tmp") && !d.IsDir() {
			removeStale(path)
			return nil
		}
		if d.IsDir() || rel == bindingFile || rel == standInFile {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		found[filepath.ToSlash(rel)] = fi
		return nil
	})
	return found, err
}

// entrySum returns the SHA-256 of the cache entry at path less its native
// code, and the file it read (which may no longer be the one at path).
//
// The native code is nearly all of an entry (14 of 15 MB for a Go plugin),
// and wazero checks it at every load against the CRC-32C the entry stores
// after it, refusing the entry on a mismatch (compile then deletes the
// module's entries and compiles it again). The SHA-256 covers the rest,
// that CRC included: so every byte of an entry is still checked at every
// run, one that another module's entry replaced or that was damaged is
// still refused, and a run hashes a few KB instead of the 15 MB (9 ms of
// CPU on the machine of bench/wasm.sh). An entry whose layout is not
// wazero's (below) is hashed whole.
func entrySum(path string) (string, fs.FileInfo, error) {
	f, err := bounded.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	h := sha256.New()
	if skip, at, ok := codeSpan(f, fi.Size()); ok {
		// Up to the code, then from its end: the CRC-32C and the tables.
		if _, err := io.Copy(h, io.NewSectionReader(f, 0, at)); err != nil {
			return "", nil, err
		}
		_, err = io.Copy(h, io.NewSectionReader(f, at+skip, fi.Size()-at-skip))
	} else {
		h.Write([]byte("whole\n"))
		_, err = io.Copy(h, io.NewSectionReader(f, 0, fi.Size()))
	}
	if err != nil {
		return "", nil, err
	}
	return hex.EncodeToString(h.Sum(nil)), fi, nil
}

// wholeSum is the SHA-256 of the file at path, whole: what records of a
// fledge before entrySum bound ("" if it cannot be read).
func wholeSum(path string) string {
	f, err := bounded.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// codeSpan finds the native code in a wazero cache entry of size bytes:
// its length and where it starts. The layout is wazero's (v1.12.0,
// internal/engine/wazevo/engine_cache.go, serializeCompiledModule):
// "WAZEVO", the version's length (1 byte) and the version, the number of
// functions (4 bytes, little-endian), 8 bytes of offset for each, the
// code's length (8 bytes), the code, its CRC-32C (4 bytes), then the
// source map and exception tables. ok is false for anything else.
func codeSpan(f io.ReaderAt, size int64) (length, at int64, ok bool) {
	const magic = "WAZEVO"
	head := make([]byte, len(magic)+1+255+4)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	if n < len(magic)+1 || string(head[:len(magic)]) != magic {
		return 0, 0, false
	}
	funcsAt := int64(len(magic) + 1 + int(head[len(magic)]))
	if int64(n) < funcsAt+4 {
		return 0, 0, false
	}
	lenAt := funcsAt + 4 + 8*int64(binary.LittleEndian.Uint32(head[funcsAt:]))
	var b [8]byte
	if lenAt+8 > size {
		return 0, 0, false
	}
	if _, err := f.ReadAt(b[:], lenAt); err != nil {
		return 0, 0, false
	}
	length, at = int64(binary.LittleEndian.Uint64(b[:])), lenAt+8
	// The CRC-32C follows the code: an entry too short to hold it is not
	// one to skip the code of.
	if length < 0 || length > size-at-4 {
		return 0, 0, false
	}
	return length, at, true
}

// A crash (or a kill) mid-compile leaves what it was writing: wazero's
// entry under a temporary name (15 MB for a Go module), or the scratch
// cache a stand-in is compiled in to learn its entry's name (standin.go).
// Nothing would ever delete them: entries leaves temporary files out, and
// scratch directories are beside the modules' directories. So the runs
// delete them once they are older than anything alive could have left
// them: a compile ends within CompileTimeout, and a file is written, or a
// scratch directory used, within the compile that made it. One deleted
// under a stopped process (a fledge suspended for longer) costs it
// nothing but the stand-in it was filing: filing fails without harm.

// staleAfter is how old a temporary file or scratch directory must be to
// be left by a process no longer writing it.
func staleAfter() time.Duration { return CompileTimeout + time.Minute }

// removeStale deletes the temporary file at path if it is stale.
func removeStale(path string) {
	if fi, err := os.Lstat(path); err == nil && time.Since(fi.ModTime()) > staleAfter() {
		_ = os.Remove(path)
	}
}

// sweepScratch deletes the stale scratch caches in root (the directory of
// the modules' directories).
func sweepScratch(root string) {
	names, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, d := range names {
		if !strings.HasPrefix(d.Name(), scratchPrefix) {
			continue
		}
		if fi, err := d.Info(); err == nil && time.Since(fi.ModTime()) > staleAfter() {
			_ = os.RemoveAll(filepath.Join(root, d.Name()))
		}
	}
}

// binding is a module directory's record, read.
type binding struct {
	sums    map[string]string // path → SHA-256 of the entry
	scanned string            // the scannedLine it holds, or ""
	standIn string            // the stand-in entry it names, or ""
}

// record reads dir's record, if it is id's.
func record(dir, id string) binding {
	data, err := os.ReadFile(filepath.Join(dir, bindingFile))
	if err != nil {
		return binding{}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != "module "+id {
		return binding{}
	}
	b := binding{sums: map[string]string{}}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "scanned ") {
			b.scanned = line
		} else if p, ok := strings.CutPrefix(line, "standin "); ok {
			b.standIn = p
		} else if sum, path, ok := strings.Cut(line, " "); ok {
			b.sums[path] = sum
		}
	}
	return b
}

// unbound deletes each entry in c's directory that its record does not
// bind to c's module, and notes the ones it keeps and whether the record
// vouches for the bounds scan.
func (c *moduleCache) unbound() error {
	found, err := entries(c.dir)
	if err != nil {
		return err
	}
	rec := record(c.dir, c.id)
	c.scanned = rec.scanned
	c.checked = map[string]checkedEntry{}
	for path := range found {
		full := filepath.Join(c.dir, filepath.FromSlash(path))
		sum, fi, err := entrySum(full)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		if bound := rec.sums[path]; err == nil && bound != "" && (bound == sum || bound == wholeSum(full)) {
			// Bound by this record, or by one of a fledge that hashed
			// entries whole: bind rewrites that one.
			c.checked[path] = checkedEntry{sum, fi}
			continue
		}
		if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if _, ok := c.checked[rec.standIn]; ok {
		c.standIn = rec.standIn
	}
	return nil
}

// bind records the entries in the module's directory, once it compiled
// (after the bounds scan, or on the record's word that the module passed
// it): what wazero just added, and what this process checked. Only files
// this process has not hashed are hashed: the ones wazero added, each a
// new file (it writes a temporary file and renames it into place).
func (c *moduleCache) bind() error {
	if c == nil || c.dir == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scanned = scannedLine()
	found, err := entries(c.dir)
	if err != nil || len(found) == 0 {
		return err
	}
	standIn := c.standIn
	if _, ok := found[standIn]; !ok {
		standIn = ""
	}
	rec := record(c.dir, c.id)
	same := rec.scanned == scannedLine() && rec.standIn == standIn && len(rec.sums) == len(found)
	sums := make(map[string]string, len(found))
	for path, fi := range found {
		if e, ok := c.checked[path]; ok && os.SameFile(e.fi, fi) && e.fi.Size() == fi.Size() && e.fi.ModTime().Equal(fi.ModTime()) {
			sums[path] = e.sum
		} else {
			sum, hashed, err := entrySum(filepath.Join(c.dir, filepath.FromSlash(path)))
			if err != nil {
				return err
			}
			c.checked[path] = checkedEntry{sum, hashed}
			sums[path] = sum
		}
		same = same && rec.sums[path] == sums[path]
	}
	if same {
		return nil
	}
	var b strings.Builder
	b.WriteString("module " + c.id + "\n" + scannedLine() + "\n")
	if standIn != "" {
		b.WriteString("standin " + standIn + "\n")
	}
	for path, sum := range sums {
		b.WriteString(sum + " " + path + "\n")
	}
	return renameio.WriteFile(filepath.Join(c.dir, bindingFile), []byte(b.String()))
}

// needsScan says whether the module must be scanned before it is compiled:
// unless its record, or this process, saw it pass the scan under the
// current Bounds.
func (c *moduleCache) needsScan() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scanned == "" || c.scanned != scannedLine()
}

// drop deletes every entry of the module that this process kept, saying
// whether there was one: for wazero refusing one when it loads it.
func (c *moduleCache) drop() bool {
	if c.dir == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	dropped := false
	for path := range c.checked {
		if os.Remove(filepath.Join(c.dir, filepath.FromSlash(path))) == nil {
			dropped = true
		}
	}
	c.checked = map[string]checkedEntry{}
	c.standIn = ""
	return dropped
}

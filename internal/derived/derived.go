// Package derived keeps files computed from other files — the last
// `plugins list --json` document, the command index of plugins.toml, the
// decoded plugins.toml and each plugin's decoded plugin.toml — next
// to a key: the SHA-256 of every input they were computed from (the exact
// bytes of those files) and of the fledge binary that computed them. A later
// run with the same inputs uses the stored result instead of decoding and
// encoding again; any change to an input, however small and whatever its
// mtime, changes the key. Callers store only what they computed without
// error, so a derived file never hides an error. Derived files are
// disposable: a missing, unreadable, foreign or truncated one is a miss,
// and a home that cannot be written just goes without.
//
// Where reading an input costs more than the rest (a 1.2 MB plugins.toml,
// a PATH directory of a thousand entries), its stamp stands in for its
// contents: what the kernel reports about it, which changes whenever the
// contents do once the file has settled (see Stamp for the exact terms).
// plugins.toml's digest is remembered so (DigestFileMemo: 0.01 ms against
// 0.8 ms of SHA-256 at 1,000 plugins), and list --json's PATH scan
// (runner.Externals: 0.1 ms against 0.7 ms reading the directories).
// Tests change each such input and see the stamp, the remembered digest,
// the index and the listing change (stamp_test.go, runner's
// external_index_test.go, cmd/internal/cli list_stamps_test.go).
//
// Anyone who can write a derived file can write the files it derives from
// (they live in the same FLEDGE_HOME), so a derived file is trusted exactly
// as far as its inputs are.
//
// Each use earns its place, measured with 100 plugins: list --json takes
// about 0.3 ms from its derived file against 3.2 ms rendered, and a command
// lookup 0.3 ms through the index against 2.5 ms decoding plugins.toml
// (BenchmarkListJSON in cmd/internal/cli, BenchmarkCommandOwner and
// BenchmarkParse in lockfile); and fledge mcp's catalog reads 100
// plugins' records from their derived file for a third of the CPU of
// decoding their TOML (lockfile.Store.LoadCached); a run reads its
// plugin's plugin.toml decoded, skipping go-toml and the manifest's key
// table, 60-130 µs in a fresh process (runner's decodeManifest). Values
// are stored in an encoding of their own (AppendValue). A test changes
// each input of each and sees
// the result change: plugins.toml, config.toml and the programs on PATH
// (cmd/internal/cli list_cache_test.go), plugins.toml for the index
// (lockfile index_test.go) and the decode (decoded_test.go), plugin.toml
// (runner TestDecodedManifestFile), and the binary (TestKeyCoversTheBinary,
// TestListCacheSeesANewBinary).
package derived

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// magic starts every derived file; a new layout gets a new magic.
const magic = "fledge-derived-v1"

// MaxSize bounds what is read back from a derived file.
const MaxSize = 128 << 20

// Digest is the SHA-256 of one input.
type Digest = [sha256.Size]byte

// Sum returns the digest of data, an input already read.
func Sum(data []byte) Digest { return sha256.Sum256(data) }

// File is one derived file for one set of inputs.
type File struct {
	path string
	key  string // hex SHA-256 of kind, binary and inputs; "" disables it
}

// New returns the derived file at path for the result called kind of the
// inputs with the given digests.
func New(path, kind string, inputs ...Digest) File {
	return NewFor(binaryIdentity(), path, kind, inputs...)
}

// NewFor is New for a result computed by the binary whose identity is exe
// (IdentityOf): the split build's fledge serves what fledge-core beside it
// stored. An empty identity disables the file.
func NewFor(exe, path, kind string, inputs ...Digest) File {
	if exe == "" {
		return File{}
	}
	h := sha256.New()
	var n [8]byte
	for _, part := range []string{magic, exe, kind} {
		// Length-prefixed, so no two lists of parts hash alike.
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	for _, d := range inputs {
		h.Write(d[:])
	}
	return File{path: path, key: hex.EncodeToString(h.Sum(nil))}
}

// DigestFile returns the digest of the file at path, or of nothing when
// there is no file, reading it in small pieces so that a large input costs
// no large allocation. It fails on any error and on a file larger than max:
// the caller's own read of the file reports those.
func DigestFile(path string, max int64) (Digest, bool) {
	var sum Digest
	f, err := bounded.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Sum(nil), true
	}
	if err != nil {
		return sum, false
	}
	defer f.Close()
	h := sha256.New()
	// A small buffer, read into by hand: io.Copy's 32 KiB is a large
	// allocation, cleared, and its interface checks a lookup's first
	// uses of their code, for a file of a few kB on every run.
	buf := make([]byte, 8<<10)
	var n int64
	for {
		m, err := f.Read(buf)
		h.Write(buf[:m])
		if n += int64(m); n > max {
			return sum, false
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return sum, false
		}
	}
	h.Sum(sum[:0])
	return sum, true
}

// maxHeader bounds a derived file's first line, its newline included.
const maxHeader = 128

// header is the first line of a derived file: magic, key and body length.
func (c File) header(bodyLen int64) string {
	return magic + " " + c.key + " " + strconv.FormatInt(bodyLen, 10) + "\n"
}

// open returns the derived file positioned at its body, and the body's
// length, when the file is there and its header matches.
func (c File) open() (*os.File, int64, bool) {
	if c.key == "" {
		return nil, 0, false
	}
	f, err := bounded.Open(c.path)
	if err != nil {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, false
	}
	var head [maxHeader]byte
	n, _ := io.ReadFull(f, head[:])
	line, _, ok := bytes.Cut(head[:n], []byte("\n"))
	hl := int64(len(line) + 1)
	body := fi.Size() - hl
	if !ok || body < 0 || body > MaxSize || string(line)+"\n" != c.header(body) {
		f.Close()
		return nil, 0, false
	}
	if _, err := f.Seek(hl, io.SeekStart); err != nil {
		f.Close()
		return nil, 0, false
	}
	return f, body, true
}

// CopyTo writes the stored result to w and reports whether there was one.
// The body streams from the file, never held whole in memory (to a file or
// pipe, the kernel moves it: see sendFile); its length was checked against
// the file's before the first byte is written.
func (c File) CopyTo(w io.Writer) (bool, error) {
	f, n, ok := c.open()
	if !ok {
		return false, nil
	}
	defer f.Close()
	if _, handled, err := sendFile(w, f, n); handled {
		return true, err
	}
	_, err := io.CopyN(w, f, n)
	return true, err
}

// Read returns the stored result, or false. It reads the file whole in
// one pass (the header is short): a run reads two derived files, and
// reading the header first, seeking and reading on took three system
// calls more for each.
func (c File) Read() ([]byte, bool) {
	if c.key == "" {
		return nil, false
	}
	data, err := bounded.ReadFile(c.path, MaxSize+maxHeader)
	if err != nil {
		return nil, false
	}
	line, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok || len(line) >= maxHeader || len(body) > MaxSize || string(line)+"\n" != c.header(int64(len(body))) {
		return nil, false
	}
	return body, true
}

// Put stores result, replacing the file atomically. It is best effort: the
// result was already used, and the derived file only saves time.
func (c File) Put(result []byte) {
	if c.key == "" || int64(len(result)) > MaxSize {
		return
	}
	// The cache directory is made inside an existing home, never the home
	// itself: a lookup must not create FLEDGE_HOME as a side effect.
	dir := filepath.Dir(c.path)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(c.path)+"-*.tmp")
	if err != nil {
		return
	}
	// No fsync: a file cut short by a crash fails the length check.
	_, err = io.WriteString(tmp, c.header(int64(len(result))))
	if err == nil {
		_, err = tmp.Write(result)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Readable like plugins.toml, for a shared home.
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// Identity names the fledge binary whose derived files this process uses:
// the running one (see IdentityOf), or the one ActAs named.
func Identity() string { return binaryIdentity() }

// binaryIdentity names the running fledge binary (executableIdentity), so
// a rebuilt or upgraded fledge (whose results may differ) never uses what
// an older one stored.
var binaryIdentity = sync.OnceValue(executableIdentity)

// ActAs has this process use derived files as the executable at the path
// exe returns does (IdentityOf), rather than as itself: the split build's
// fledge, which hands fledge-core beside it every run it does not finish
// (a wasm plugin's, one on a terminal), keys them as fledge-core does, or
// each handover would rewrite the command index and the plugin's decoded
// manifest twice. The two come from one release. Call it before any
// derived file is used; an error from exe disables them.
func ActAs(exe func() (string, error)) {
	binaryIdentity = sync.OnceValue(func() string {
		path, err := exe()
		if err != nil {
			return ""
		}
		return IdentityOf(path)
	})
}

package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// A render cache keeps a document fledge printed (list --json) next to a
// key: the SHA-256 of every input it was computed from — the exact bytes of
// plugins.toml and config.toml, and the identity of the fledge binary that
// rendered it. A later run with the same inputs prints the cached bytes
// instead of decoding and encoding a thousand entries again; any change to
// an input, however small and whatever its mtime, changes the key. Only
// successful renders are stored, so the cache never hides an error, and it
// is disposable: a missing, unreadable, foreign or truncated file is a miss,
// and a home that cannot be written just goes uncached.
const renderMagic = "fledge-render-cache-v1"

// maxRendered bounds what is read back from a cache file.
const maxRendered = 128 << 20

type renderCache struct {
	path string
	key  string // hex SHA-256 of the inputs; "" disables the cache
}

// newRenderCache returns the cache of the document computed by kind from
// inputs, given as their SHA-256 digests.
func newRenderCache(path, kind, version string, inputs ...[sha256.Size]byte) renderCache {
	exe := binaryIdentity()
	if exe == "" {
		return renderCache{}
	}
	h := sha256.New()
	var n [8]byte
	for _, part := range [][]byte{[]byte(renderMagic), []byte(exe), []byte(version), []byte(kind)} {
		// Length-prefixed, so no two lists of parts hash alike.
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	for _, d := range inputs {
		h.Write(d[:])
	}
	return renderCache{path: path, key: hex.EncodeToString(h.Sum(nil))}
}

// digestFile returns the SHA-256 of the file at path, of nothing when there
// is no file, reading it in small pieces so that a large plugins.toml costs
// no large allocation. It fails on any error and on a file larger than max
// (the caller's own read reports those).
func digestFile(path string, max int64) ([sha256.Size]byte, bool) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return sha256.Sum256(nil), true
	}
	if err != nil {
		return sum, false
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, max+1))
	if err != nil || n > max {
		return sum, false
	}
	h.Sum(sum[:0])
	return sum, true
}

// header is the first line of a cache file: magic, key and body length.
func (c renderCache) header(bodyLen int64) string {
	return renderMagic + " " + c.key + " " + strconv.FormatInt(bodyLen, 10) + "\n"
}

// copyTo writes the cached document to w and reports whether there was
// one. The body streams from the file, never held whole in memory; its
// length is checked against the file's before the first byte is written.
func (c renderCache) copyTo(w io.Writer) (bool, error) {
	if c.key == "" {
		return false, nil
	}
	f, err := os.Open(c.path)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false, nil
	}
	var head [128]byte
	n, _ := io.ReadFull(f, head[:])
	line, _, ok := bytes.Cut(head[:n], []byte("\n"))
	if !ok {
		return false, nil
	}
	hl := int64(len(line) + 1)
	body := fi.Size() - hl
	if body < 0 || body > maxRendered || string(line)+"\n" != c.header(body) {
		return false, nil
	}
	if _, err := f.Seek(hl, io.SeekStart); err != nil {
		return false, nil
	}
	_, err = io.CopyN(w, f, body)
	return true, err
}

// put stores doc, replacing the file atomically. It is best effort: the
// document was already printed, and the cache only saves time.
func (c renderCache) put(doc []byte) {
	if c.key == "" || int64(len(doc)) > maxRendered {
		return
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(c.path)+"-*.tmp")
	if err != nil {
		return
	}
	// No fsync: a file cut short by a crash fails the length check.
	_, err = io.WriteString(tmp, c.header(int64(len(doc))))
	if err == nil {
		_, err = tmp.Write(doc)
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

// binaryIdentity names the running fledge binary by path, size and
// modification time, so a rebuilt fledge (whose output may differ even with
// the same version string) never reads a document an older one rendered.
var binaryIdentity = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", exe, fi.Size(), fi.ModTime().UnixNano())
})

package derived

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeySeparatesKindsAndInputs(t *testing.T) {
	a, b := Sum([]byte("a")), Sum([]byte("b"))
	keys := map[string]string{}
	for name, f := range map[string]File{
		"kind1 a":   New("p", "kind1", a),
		"kind2 a":   New("p", "kind2", a),
		"kind1 b":   New("p", "kind1", b),
		"kind1 a b": New("p", "kind1", a, b),
		"kind1 b a": New("p", "kind1", b, a),
		"kind1":     New("p", "kind1"),
	} {
		if f.key == "" {
			t.Fatalf("%s: no key", name)
		}
		if other, dup := keys[f.key]; dup {
			t.Errorf("%s and %s share a key", name, other)
		}
		keys[f.key] = name
	}
	if New("p", "kind1", a).key != New("p", "kind1", a).key {
		t.Error("the same inputs give different keys")
	}
	if !strings.Contains(binaryIdentity(), filepath.Base(os.Args[0])) {
		t.Errorf("binary identity %q does not name the running binary", binaryIdentity())
	}
}

func TestPutReadCopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "doc")
	f := New(path, "k", Sum([]byte("in")))
	if _, ok := f.Read(); ok {
		t.Fatal("hit before anything was stored")
	}
	doc := bytes.Repeat([]byte("line\n"), 50000)
	f.Put(doc)
	got, ok := f.Read()
	if !ok || !bytes.Equal(got, doc) {
		t.Fatalf("Read: %v, %d bytes", ok, len(got))
	}
	var buf bytes.Buffer
	if hit, err := f.CopyTo(&buf); !hit || err != nil || !bytes.Equal(buf.Bytes(), doc) {
		t.Fatalf("CopyTo: %v %v, %d bytes", hit, err, buf.Len())
	}
	if _, ok := New(path, "k", Sum([]byte("other"))).Read(); ok {
		t.Fatal("another input's key read the stored result")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("stored file: %v %v", fi, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestDigestFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if d, ok := DigestFile(path, 10); !ok || d != Sum(nil) {
		t.Fatal("a missing file must digest as empty")
	}
	os.WriteFile(path, []byte("0123456789"), 0o644)
	if d, ok := DigestFile(path, 10); !ok || d != Sum([]byte("0123456789")) {
		t.Fatal("digest differs from Sum of the contents")
	}
	if _, ok := DigestFile(path, 9); ok {
		t.Fatal("a file over the limit must fail")
	}
	if _, ok := DigestFile(dir, 10); ok {
		t.Fatal("a directory must fail")
	}
}

// A FIFO where a derived file or an input should be is a miss, at once:
// opening it would block.
func TestFIFOIsAMiss(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if _, ok := DigestFile(fifo, 100); ok {
		t.Fatal("a FIFO input was digested")
	}
	if _, ok := New(fifo, "k").Read(); ok {
		t.Fatal("a FIFO read as a derived file")
	}
}

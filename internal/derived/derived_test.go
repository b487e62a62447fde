package derived

import (
	"bytes"
	"os"
	"path/filepath"
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
	if binaryIdentity() == "" || binaryIdentity() != executableIdentity() {
		t.Errorf("binary identity %q: the running binary names itself %q", binaryIdentity(), executableIdentity())
	}
}

// The key covers the binary that computed a result: a fledge rebuilt,
// upgraded or moved (another size, modification time or path) never reads
// what another stored, and one that cannot name itself stores nothing.
// (Not parallel: it swaps the binary's identity.)
func TestKeyCoversTheBinary(t *testing.T) {
	saved := binaryIdentity
	t.Cleanup(func() { binaryIdentity = saved })
	path := filepath.Join(t.TempDir(), "doc")
	in := Sum([]byte("in"))
	binaryIdentity = func() string { return "/usr/bin/fledge\x00100\x001" }
	New(path, "k", in).Put([]byte("stored"))
	if got, ok := New(path, "k", in).Read(); !ok || string(got) != "stored" {
		t.Fatalf("the same binary missed its own result: %q, %v", got, ok)
	}
	for _, other := range []string{"/usr/bin/fledge\x00101\x001", "/usr/bin/fledge\x00100\x002", "/opt/fledge\x00100\x001"} {
		binaryIdentity = func() string { return other }
		if got, ok := New(path, "k", in).Read(); ok {
			t.Errorf("binary %q read %q, which another stored", other, got)
		}
	}
	binaryIdentity = func() string { return "" }
	f := New(path, "k", in)
	f.Put([]byte("unknown"))
	if got, ok := f.Read(); ok {
		t.Errorf("a binary that cannot name itself read %q", got)
	}
	binaryIdentity = func() string { return "/usr/bin/fledge\x00100\x001" }
	if got, _ := New(path, "k", in).Read(); string(got) != "stored" {
		t.Errorf("a binary that cannot name itself overwrote the result: %q", got)
	}
}

// TestActAs: a process acting as another executable (the split fledge as
// fledge-core) reads what that executable stored, and writes what it
// reads; one whose executable cannot be found stores nothing.
// (Not parallel: it swaps the binary's identity.)
func TestActAs(t *testing.T) {
	saved := binaryIdentity
	t.Cleanup(func() { binaryIdentity = saved })
	dir := t.TempDir()
	core := filepath.Join(dir, "fledge-core")
	if err := os.WriteFile(core, []byte("core"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "doc")
	in := Sum([]byte("in"))
	NewFor(IdentityOf(core), path, "k", in).Put([]byte("by core"))
	ActAs(func() (string, error) { return core, nil })
	if Identity() != IdentityOf(core) {
		t.Fatalf("acting as %s, Identity() = %q, want %q", core, Identity(), IdentityOf(core))
	}
	if got, ok := New(path, "k", in).Read(); !ok || string(got) != "by core" {
		t.Errorf("acting as fledge-core, read %q, %v: want what it stored", got, ok)
	}
	New(path, "k", in).Put([]byte("by fledge"))
	if got, ok := NewFor(IdentityOf(core), path, "k", in).Read(); !ok || string(got) != "by fledge" {
		t.Errorf("fledge-core read %q, %v: want what fledge, acting as it, stored", got, ok)
	}
	ActAs(func() (string, error) { return "", os.ErrNotExist })
	if Identity() != "" {
		t.Errorf("acting as an executable that cannot be found, Identity() = %q, want none", Identity())
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

package derived

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// CopyTo writes the body, byte for byte, whatever it writes to: a pipe and
// a regular file (where the kernel moves it), a file opened for appending
// (where it refuses and the body is copied through memory) and a buffer.
func TestCopyToEveryKindOfWriter(t *testing.T) {
	dir := t.TempDir()
	doc := bytes.Repeat([]byte("0123456789abcdef\n"), 40000) // 680 KB: several pipe-fulls
	f := New(filepath.Join(dir, "doc"), "k", Sum([]byte("in")))
	f.Put(doc)
	copyTo := func(w io.Writer) {
		t.Helper()
		if hit, err := f.CopyTo(w); !hit || err != nil {
			t.Fatalf("CopyTo: %v, %v", hit, err)
		}
	}
	var buf bytes.Buffer
	copyTo(&buf)
	if !bytes.Equal(buf.Bytes(), doc) {
		t.Error("buffer: body differs")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(r)
		got <- data
	}()
	copyTo(w)
	w.Close()
	if data := <-got; !bytes.Equal(data, doc) {
		t.Errorf("pipe: %d bytes, want %d", len(data), len(doc))
	}
	for name, flag := range map[string]int{"file": os.O_WRONLY | os.O_CREATE, "appended": os.O_WRONLY | os.O_CREATE | os.O_APPEND} {
		path := filepath.Join(dir, name)
		out, err := os.OpenFile(path, flag, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := out.WriteString("head\n"); err != nil {
			t.Fatal(err)
		}
		copyTo(out)
		out.Close()
		if data, err := os.ReadFile(path); err != nil || !bytes.Equal(data, append([]byte("head\n"), doc...)) {
			t.Errorf("%s: %d bytes, %v; want the head and the body after it", name, len(data), err)
		}
	}
}

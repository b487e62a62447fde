package bounded

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789"), 10000)
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit int64
		want  int
	}{{0, 0}, {1, 1}, {99999, 99999}, {100000, 100000}, {100001, 100000}, {1 << 30, 100000}} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadAll(f, tc.limit)
		f.Close()
		if err != nil {
			t.Fatalf("limit %d: %v", tc.limit, err)
		}
		if !bytes.Equal(got, data[:tc.want]) {
			t.Errorf("limit %d: read %d bytes, want the first %d", tc.limit, len(got), tc.want)
		}
	}
}

// A file that grows after Stat is still read to the limit, and one that is
// not regular (a pipe) is read without a size hint.
func TestReadAllNotSized(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(bytes.Repeat([]byte("x"), 5000))
		w.Close()
	}()
	got, err := ReadAll(r, 4097)
	if err != nil || len(got) != 4097 {
		t.Fatalf("pipe: %d bytes, %v; want 4097", len(got), err)
	}
}

func BenchmarkReadAll(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 1500000), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(1500000)
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ReadAll(f, 32<<20); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

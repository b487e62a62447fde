package gitdirty

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"os"
	"sync"
	"testing"

	gogitindex "github.com/go-git/go-git/v5/plumbing/format/index"
)

// benchIndexFiles is how many files the benchmark index holds: the size
// of repository the dirty check is measured on (see dirty.go).
const benchIndexFiles = 5000

var benchIndexOnce struct {
	sync.Once
	data []byte
}

// benchIndex returns the index git writes for benchIndexFiles small files
// in 50 directories, built once per test binary.
func benchIndex(b *testing.B) []byte {
	b.Helper()
	benchIndexOnce.Do(func() {
		r := newIxRepo(b)
		for i := range benchIndexFiles {
			r.write(fmt.Sprintf("pkg%02d/file%d.txt", i%50, i), fmt.Sprintf("line %d\n", i))
		}
		r.commitAll("init")
		data, err := os.ReadFile(r.indexPath())
		if err != nil {
			b.Fatal(err)
		}
		benchIndexOnce.data = data
	})
	if benchIndexOnce.data == nil {
		b.Fatal("benchmark index failed to build")
	}
	return benchIndexOnce.data
}

func BenchmarkIndexParse(b *testing.B) {
	data := benchIndex(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		idx, err := parseIndex(data)
		if err != nil {
			b.Fatal(err)
		}
		if len(idx.entries) != benchIndexFiles || !idx.treeValid {
			b.Fatalf("%d entries, treeValid %v", len(idx.entries), idx.treeValid)
		}
	}
}

// BenchmarkIndexChecksum is the part of BenchmarkIndexParse that verifies
// the trailer (git itself verifies it only in fsck).
func BenchmarkIndexChecksum(b *testing.B) {
	data := benchIndex(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		sum := sha1.Sum(data[:len(data)-sha1.Size])
		if !bytes.Equal(sum[:], data[len(data)-sha1.Size:]) {
			b.Fatal("checksum mismatch")
		}
	}
}

func BenchmarkIndexGoGit(b *testing.B) {
	data := benchIndex(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var idx gogitindex.Index
		if err := gogitindex.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
			b.Fatal(err)
		}
		if len(idx.Entries) != benchIndexFiles {
			b.Fatalf("%d entries", len(idx.Entries))
		}
	}
}

package ociartifact

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/corvidlabs/fledge-go/treehash"
)

type entry struct {
	name, link, body string
	typ              byte
}

func layerOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typ, Mode: 0o644, Size: int64(len(e.body))}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// Nothing in a layer writes outside the tree, through a symlink, or
// anything but files, directories and symlinks.
func TestUnpackRefusesHostileLayers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []entry
		want    error
	}{
		{"parent", []entry{{name: "../x", typ: tar.TypeReg, body: "x"}}, ErrBadLayer},
		{"absolute", []entry{{name: "/tmp/x", typ: tar.TypeReg, body: "x"}}, ErrBadLayer},
		{"inner parent", []entry{{name: "a/../../x", typ: tar.TypeReg, body: "x"}}, ErrBadLayer},
		{"git dir", []entry{{name: ".git/config", typ: tar.TypeReg, body: "x"}}, ErrBadLayer},
		{"symlink out", []entry{{name: "l", link: "../../etc", typ: tar.TypeSymlink}}, treehash.ErrUnsafeTree},
		{"symlink absolute", []entry{{name: "l", link: "/etc", typ: tar.TypeSymlink}}, treehash.ErrUnsafeTree},
		{"write through symlink", []entry{{name: "l", link: "d", typ: tar.TypeSymlink}, {name: "l/x", typ: tar.TypeReg, body: "x"}}, nil},
		{"device", []entry{{name: "dev", typ: tar.TypeChar}}, ErrBadLayer},
		{"fifo", []entry{{name: "p", typ: tar.TypeFifo}}, ErrBadLayer},
		{"hard link", []entry{{name: "a", typ: tar.TypeReg, body: "x"}, {name: "b", link: "a", typ: tar.TypeLink}}, ErrBadLayer},
		{"twice", []entry{{name: "a", typ: tar.TypeReg, body: "x"}, {name: "a", typ: tar.TypeReg, body: "y"}}, ErrBadLayer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "tree")
			err := unpack(bytes.NewReader(layerOf(t, tc.entries...)), dir, Limits{})
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			// Whatever happened, nothing exists outside the tree.
			ents, _ := os.ReadDir(root)
			if len(ents) > 1 {
				t.Fatalf("unpack wrote beside the tree: %v", ents)
			}
			if _, err := os.Stat(filepath.Join(dir, "d", "x")); err == nil {
				t.Fatal("a file was written through a symlink")
			}
		})
	}
}

func TestUnpackBoundsEntries(t *testing.T) {
	var es []entry
	for i := 0; i < 5; i++ {
		es = append(es, entry{name: string(rune('a' + i)), typ: tar.TypeReg, body: "x"})
	}
	err := unpack(bytes.NewReader(layerOf(t, es...)), filepath.Join(t.TempDir(), "t"), Limits{MaxTreeFiles: 3})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("more than 3 files")) {
		t.Fatalf("got %v", err)
	}
}

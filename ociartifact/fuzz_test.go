package ociartifact

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Whatever a layer holds, unpacking it writes nothing outside the tree
// and never panics.
func FuzzUnpack(f *testing.F) {
	f.Add(layerOf(f, entry{name: "plugin.toml", typ: tar.TypeReg, body: "[plugin]\n"}, entry{name: "bin/", typ: tar.TypeDir}, entry{name: "bin/run", typ: tar.TypeReg, body: "#!/bin/sh\n"}))
	f.Add(layerOf(f, entry{name: "l", link: "d", typ: tar.TypeSymlink}, entry{name: "l/x", typ: tar.TypeReg, body: "x"}))
	f.Add(layerOf(f, entry{name: "../x", typ: tar.TypeReg, body: "x"}))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		_ = unpack(bytes.NewReader(data), filepath.Join(root, "tree"), Limits{MaxTreeBytes: 1 << 20, MaxTreeFiles: 100})
		ents, _ := os.ReadDir(root)
		if len(ents) > 1 {
			t.Fatalf("unpack wrote beside the tree: %v", ents)
		}
	})
}

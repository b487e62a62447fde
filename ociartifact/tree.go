package ociartifact

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/corvidlabs/fledge-go/gitfetch"
	"github.com/corvidlabs/fledge-go/treehash"
)

// Limits bound what one pull reads and writes. Zero fields take the
// defaults: gitfetch's tree limits, which a git install has too, and
// MaxManifestBytes.
type Limits struct {
	MaxManifestBytes int64
	MaxTreeBytes     int64
	MaxTreeFiles     int
}

// DefaultMaxManifestBytes bounds a manifest (a fledge manifest is under
// 2 KiB; registries cap manifests at 4 MiB).
const DefaultMaxManifestBytes = 64 << 10

func (l Limits) manifest() int64 {
	if l.MaxManifestBytes > 0 {
		return l.MaxManifestBytes
	}
	return DefaultMaxManifestBytes
}

func (l Limits) treeBytes() int64 {
	if l.MaxTreeBytes > 0 {
		return l.MaxTreeBytes
	}
	return gitfetch.DefaultMaxTreeBytes
}

func (l Limits) treeFiles() int {
	if l.MaxTreeFiles > 0 {
		return l.MaxTreeFiles
	}
	return gitfetch.DefaultMaxTreeFiles
}

// layerBytes bounds the compressed layer: a tree within the limits, which
// gzip grows by a few bytes in 16 KiB at worst, plus its tar headers and
// padding, which compress to well under a sixteenth of a tree of many
// small files.
func (l Limits) layerBytes() int64 {
	n := l.treeBytes()
	return n + n/16 + 1<<20
}

// tooLarge is the gitfetch error a git install gives for the same excess,
// so the CLI says one thing about both.
func tooLarge(what string, l Limits) error {
	switch what {
	case "files":
		return &gitfetch.TooLargeError{What: what, Limit: int64(l.treeFiles())}
	case "size":
		return &gitfetch.TooLargeError{What: what, Limit: l.treeBytes()}
	}
	return &gitfetch.TooLargeError{What: "download", Limit: l.layerBytes(), MaxTreeBytes: l.treeBytes()}
}

// pack writes the tree at dir as a gzipped tar: entries in the walk's
// lexical order, no owners or times, modes 0755 for directories and
// executables and 0644 for other files, so one tree always packs to the
// same bytes. The tree must be one treehash accepts (no special files, no
// symlinks out of it).
func pack(dir string, l Limits) ([]byte, error) {
	if _, err := treehash.Hash(dir, treehash.Options{}); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	var files int
	var size int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ".git" {
			return filepath.SkipDir
		}
		if files++; files > l.treeFiles() {
			return tooLarge("files", l)
		}
		h := &tar.Header{Name: rel, Format: tar.FormatPAX}
		switch t := d.Type(); {
		case t.IsDir():
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, rel+"/", 0o755
			return tw.WriteHeader(h)
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, filepath.ToSlash(target), 0o777
			return tw.WriteHeader(h)
		case t.IsRegular():
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			if size += fi.Size(); size > l.treeBytes() {
				return tooLarge("size", l)
			}
			h.Typeflag, h.Size, h.Mode = tar.TypeReg, fi.Size(), 0o644
			if fi.Mode().Perm()&0o111 != 0 {
				h.Mode = 0o755
			}
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			_, err = io.CopyN(tw, f, fi.Size())
			return err
		}
		return fmt.Errorf("%w: %s is a special file", treehash.ErrUnsafeTree, rel)
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ErrBadLayer is wrapped by errors about a layer fledge will not unpack.
var ErrBadLayer = errors.New("not a plugin tree fledge unpacks")

// unpack writes the gzipped tar r into dir, which must not exist. Every
// read is bounded: entries, bytes written, and names (relative, no "..",
// no duplicates). Only regular files, directories and symlinks are
// written; symlinks last, each checked to stay inside the tree, so no
// file is ever written through one.
func unpack(r io.Reader, dir string, l Limits) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadLayer, err)
	}
	zr.Multistream(false)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	type link struct{ name, target string }
	var links []link
	seen := map[string]bool{}
	var files int
	var size int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrBadLayer, err)
		}
		if files++; files > l.treeFiles() {
			return tooLarge("files", l)
		}
		name, err := entryName(h.Name)
		if err != nil {
			return err
		}
		if seen[name] {
			return fmt.Errorf("%w: %s is in it twice", ErrBadLayer, name)
		}
		seen[name] = true
		p := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if size += h.Size; h.Size < 0 || size > l.treeBytes() {
				return tooLarge("size", l)
			}
			if err := writeFile(p, tr, h); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if !linkLocal(name, h.Linkname) {
				return fmt.Errorf("%w: symlink %s points outside the plugin (%s)", treehash.ErrUnsafeTree, name, h.Linkname)
			}
			links = append(links, link{name: p, target: filepath.FromSlash(h.Linkname)})
		default:
			return fmt.Errorf("%w: %s is a %s, and a plugin tree holds only files, directories and symlinks", ErrBadLayer, name, typeName(h.Typeflag))
		}
	}
	// What follows the archive's end (block padding) is read, so the
	// layer's digest can be checked, but never more than a little.
	if n, err := io.Copy(io.Discard, io.LimitReader(zr, 1<<20+1)); err != nil || n > 1<<20 {
		return fmt.Errorf("%w: more than 1 MiB after the end of the archive", ErrBadLayer)
	}
	for _, ln := range links {
		if err := os.MkdirAll(filepath.Dir(ln.name), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(ln.target, ln.name); err != nil {
			return fmt.Errorf("%w: %v", ErrBadLayer, err)
		}
	}
	return nil
}

// writeFile writes one regular file, never through an existing name.
func writeFile(p string, r io.Reader, h *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadLayer, err)
	}
	if _, err := io.CopyN(f, r, h.Size); err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %v", ErrBadLayer, h.Name, err)
	}
	return f.Close()
}

// entryName is a tar entry's name as a clean relative slash path, or an
// error when it could name anything outside the tree.
func entryName(n string) (string, error) {
	clean := path.Clean(strings.TrimSuffix(n, "/"))
	if n == "" || strings.Contains(n, `\`) || !filepath.IsLocal(filepath.FromSlash(clean)) || clean != strings.TrimPrefix(strings.TrimSuffix(n, "/"), "./") {
		return "", fmt.Errorf("%w: entry %q is not a plain path inside the tree", ErrBadLayer, n)
	}
	if clean == ".git" || strings.HasPrefix(clean, ".git/") {
		return "", fmt.Errorf("%w: entry %q is inside .git", ErrBadLayer, n)
	}
	return clean, nil
}

// linkLocal reports whether a symlink at name pointing at target stays
// inside the tree by its text alone (treehash checks it again, resolved,
// once the tree is written).
func linkLocal(name, target string) bool {
	if target == "" || path.IsAbs(target) || strings.Contains(target, `\`) {
		return false
	}
	return filepath.IsLocal(filepath.FromSlash(path.Join(path.Dir(name), target)))
}

func typeName(t byte) string {
	switch t {
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "device"
	case tar.TypeFifo:
		return "named pipe"
	}
	return fmt.Sprintf("tar entry of type %q", t)
}

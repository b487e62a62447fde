package gitdirty

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/corvidlabs/fledge-go/internal/bounded"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// This file reads git's index (Documentation/gitformat-index.txt) without
// reflection: go-git's decoder spends 7 ms on 5,000 entries in
// encoding/binary.Read, as much as all of `git status`. The bytes come from
// whatever repository the user stands in, so every count and length is
// checked against the bytes actually left before it is used.
//
// Where the format leaves room, the reader accepts and rejects what go-git's
// decoder (plumbing/format/index, v5.19.3) accepts and rejects, so that the
// fast path and the go-git fallback agree on which files are indexes; the
// differential fuzz target FuzzIndex holds it to that. It departs from
// go-git in these places only, each where git itself is stricter or where
// go-git's answer depends on its read buffering rather than on the bytes:
//
//   - an all-zero trailer is accepted, as git does for index.skipHash=true
//     (go-git v5.19.3 rejects it as a checksum mismatch);
//   - extended flags with bits set other than skip-worktree and
//     intent-to-add give errUnsupported (git dies "unknown index entry
//     format"; go-git ignores the bits);
//   - an EOIE extension longer than the 24 bytes git writes is skipped
//     whole, by its declared size, as git skips it (go-git reads 24 bytes
//     and skips only as much of the rest as its 4 KiB read buffer held,
//     so it parses the rest of a long one as further extensions);
//   - a v4 index whose names, expanded, would take more than
//     maxNameBytes(len(data)) gives errUnsupported: prefix compression lets
//     a hostile file of n bytes describe n²/256 bytes of names;
//   - a sparse index (the sdir extension) is read, directory entries and
//     all (go-git rejects every lowercase extension).

// maxIndexSize caps the index file readIndex will read. An entry takes
// about 100 bytes (62 fixed, the path, padding), so 512 MiB holds some
// five million entries, more than the largest repositories git serves
// (Windows', about 3.5 million files), while a runaway or hostile file is
// refused before it costs gigabytes.
const maxIndexSize = 512 << 20

// errUnsupported marks an index this reader does not handle: a required
// extension other than link and sdir, an unknown
// version or entry flag. The caller falls back to go-git's Status.
var errUnsupported = errors.New("git index uses a feature this reader does not handle")

// errCorrupt marks an index whose bytes are not a valid index: truncated,
// inconsistent, or failing its checksum.
var errCorrupt = errors.New("git index is corrupt")

type indexEntry struct {
	name                                     string // slash-separated path, as stored
	hash                                     plumbing.Hash
	mode                                     filemode.FileMode
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	dev, ino, uid, gid, size                 uint32
	stage                                    int  // 0..3 from the flags
	assumeValid                              bool // `git update-index --assume-unchanged`: git status trusts the entry without a stat
	skipWorktree, intentToAdd                bool // extended flags (v3+)
}

type index struct {
	version   uint32
	entries   []indexEntry // in file order (git keeps them sorted by name, then stage)
	treeValid bool         // the TREE extension is present and its root entry is valid
	sparse    bool         // the sdir extension: directory entries may appear
	link      *splitLink   // a split index's link extension, until readIndex merges the shared index
	treeHash  plumbing.Hash
}

const (
	indexHeaderLen  = 12 // "DIRC", version, entry count
	indexTrailerLen = sha1.Size
	entryFixedLen   = 62 // ten stat words, the hash, the flags
	// minEntryLen is the fewest bytes any entry takes: the fixed part
	// and, in v2/v3, an empty name's NUL padded to 64; in v4, a one-byte
	// strip length and the suffix's NUL.
	minEntryLen = 64

	flagAssumeValid = 0x8000
	flagExtended    = 0x4000
	flagStageShift  = 12
	flagNameMask    = 0xfff
	extSkipWorktree = 1 << 14
	extIntentToAdd  = 1 << 13
	extKnown        = extSkipWorktree | extIntentToAdd

	// eoieLen is the size of the EOIE extension git writes: an offset
	// and a hash.
	eoieLen = 4 + sha1.Size
)

// maxNameBytes bounds the bytes a v4 index of n bytes may expand its names
// to. Each entry takes at least 64 bytes of the file, so a real index
// exceeds 8n only when its paths average more than 500 bytes.
func maxNameBytes(n int) int { return 8*n + 1<<16 }

// readIndex reads and parses the index file at path.
func readIndex(path string) (*index, error) {
	data, err := bounded.ReadFile(path, maxIndexSize)
	if err != nil {
		return nil, err
	}
	idx, err := parseIndex(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if idx.link != nil {
		if err := mergeShared(idx, filepath.Dir(path)); err != nil {
			return nil, err
		}
	}
	return idx, nil
}

// parseIndex decodes an index file's bytes. It never panics, and it
// allocates at most a small multiple of len(data) whatever the bytes say.
func parseIndex(data []byte) (*index, error) {
	if len(data) < indexHeaderLen+indexTrailerLen {
		return nil, fmt.Errorf("%w: %d bytes is shorter than a header and a checksum", errCorrupt, len(data))
	}
	if string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no DIRC signature", errCorrupt)
	}
	idx := &index{version: binary.BigEndian.Uint32(data[4:8])}
	if idx.version < 2 || idx.version > 4 {
		return nil, fmt.Errorf("%w: version %d", errUnsupported, idx.version)
	}
	end := len(data) - indexTrailerLen
	if sum := data[end:]; !allZero(sum) {
		if want := sha1.Sum(data[:end]); !bytes.Equal(sum, want[:]) {
			return nil, fmt.Errorf("%w: its checksum does not match its contents", errCorrupt)
		}
	}
	count := binary.BigEndian.Uint32(data[8:12])
	// Names are substrings of this one copy, so v2/v3 entries cost no
	// allocation of their own.
	s := string(data[:end])
	p := &indexParser{s: s, off: indexHeaderLen}
	if err := p.entries(idx, count); err != nil {
		return nil, err
	}
	if err := p.extensions(idx); err != nil {
		return nil, err
	}
	return idx, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// indexParser walks s, the index without its trailer.
type indexParser struct {
	s   string
	off int
}

func (p *indexParser) u32(at int) uint32 { return be32(p.s[at:]) }

func be32(s string) uint32 {
	_ = s[3]
	return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
}

func be16(s string) uint16 {
	_ = s[1]
	return uint16(s[0])<<8 | uint16(s[1])
}

func (p *indexParser) entries(idx *index, count uint32) error {
	// A hostile count is bounded by the bytes that could hold it.
	n := min(uint64(count), uint64((len(p.s)-p.off)/minEntryLen))
	idx.entries = make([]indexEntry, 0, n)
	var v4 *v4Names
	if idx.version == 4 {
		v4 = &v4Names{budget: maxNameBytes(len(p.s)), strips: make([]int, 0, n)}
	}
	for i := uint32(0); i < count; i++ {
		at := p.off
		if len(p.s)-at < entryFixedLen {
			return fmt.Errorf("%w: entry %d of %d runs past the end", errCorrupt, i, count)
		}
		h := p.s[at : at+entryFixedLen] // one bounds check for the fixed part
		flags := be16(h[60:])
		// Decoded in place: an indexEntry is 96 bytes to copy.
		idx.entries = append(idx.entries, indexEntry{})
		e := &idx.entries[len(idx.entries)-1]
		*e = indexEntry{
			ctimeSec:    be32(h[0:]),
			ctimeNsec:   be32(h[4:]),
			mtimeSec:    be32(h[8:]),
			mtimeNsec:   be32(h[12:]),
			dev:         be32(h[16:]),
			ino:         be32(h[20:]),
			mode:        filemode.FileMode(be32(h[24:])),
			uid:         be32(h[28:]),
			gid:         be32(h[32:]),
			size:        be32(h[36:]),
			stage:       int(flags>>flagStageShift) & 3,
			assumeValid: flags&flagAssumeValid != 0,
		}
		copy(e.hash[:], h[40:60])
		fixed := entryFixedLen
		if flags&flagExtended != 0 {
			// git and go-git read extended flags whatever the version.
			if len(p.s)-at < fixed+2 {
				return fmt.Errorf("%w: entry %d of %d runs past the end", errCorrupt, i, count)
			}
			ext := be16(p.s[at+fixed:])
			if ext&^extKnown != 0 {
				return fmt.Errorf("%w: entry %d has extended flags %#04x", errUnsupported, i, ext)
			}
			e.skipWorktree = ext&extSkipWorktree != 0
			e.intentToAdd = ext&extIntentToAdd != 0
			fixed += 2
		}
		var err error
		if v4 != nil {
			err = p.nameV4(e, at+fixed, v4)
		} else {
			err = p.nameV2(e, at, fixed, flags)
		}
		if err != nil {
			return fmt.Errorf("entry %d of %d: %w", i, count, err)
		}
	}
	if v4 != nil {
		v4.build(idx.entries)
	}
	return nil
}

// nameV2 reads a v2/v3 name: the flags' length (or, at 0xFFF, a scan for
// the NUL), then NULs padding the entry to a multiple of 8 bytes.
func (p *indexParser) nameV2(e *indexEntry, at, fixed int, flags uint16) error {
	start := at + fixed
	n := int(flags & flagNameMask)
	if n == flagNameMask {
		n = strings.IndexByte(p.s[start:], 0)
		if n < 0 {
			return fmt.Errorf("%w: long name has no NUL", errCorrupt)
		}
	}
	next := at + (fixed+n+8)&^7
	if next > len(p.s) {
		return fmt.Errorf("%w: name runs past the end", errCorrupt)
	}
	e.name = p.s[start : start+n]
	p.off = next
	return nil
}

// v4Names expands v4's prefix-compressed names. The first pass, while
// the entries are read, checks each strip length against the previous
// name's length and sums the bytes the names will take; build then
// writes them into one buffer of exactly that size.
type v4Names struct {
	budget  int
	prevLen int
	total   int   // bytes build will write
	strips  []int // each entry's strip length; its name holds the suffix until build
}

// nameV4 reads a v4 name: how many bytes to drop from the end of the
// previous name, as git's offset varint, then the NUL-terminated suffix.
func (p *indexParser) nameV4(e *indexEntry, at int, v *v4Names) error {
	strip, n, ok := varint(p.s[at:])
	if !ok {
		return fmt.Errorf("%w: bad name strip length", errCorrupt)
	}
	if strip > uint64(v.prevLen) {
		return fmt.Errorf("%w: name strip length %d exceeds the previous name's %d bytes", errCorrupt, strip, v.prevLen)
	}
	at += n
	sn := strings.IndexByte(p.s[at:], 0)
	if sn < 0 {
		return fmt.Errorf("%w: name has no NUL", errCorrupt)
	}
	keep := v.prevLen - int(strip)
	if keep > 0 && sn > 0 {
		if v.total += keep + sn; v.total > v.budget {
			return fmt.Errorf("%w: v4 names expand past %d bytes", errUnsupported, v.budget)
		}
	}
	e.name = p.s[at : at+sn]
	v.strips = append(v.strips, int(strip))
	v.prevLen = keep + sn
	p.off = at + sn + 1
	return nil
}

// build replaces each entry's suffix with its whole name. A name that is
// only a suffix is a substring of the file, and one that is only a prefix
// of the previous name shares its bytes; the rest are copied, once.
func (v *v4Names) build(entries []indexEntry) {
	var buf strings.Builder
	buf.Grow(v.total)
	prev := ""
	for i := range entries {
		e := &entries[i]
		keep, suffix := prev[:len(prev)-v.strips[i]], e.name
		switch {
		case keep == "":
		case suffix == "":
			e.name = keep
		default:
			start := buf.Len()
			buf.WriteString(keep)
			buf.WriteString(suffix)
			e.name = buf.String()[start:]
		}
		prev = e.name
	}
	v.strips = nil
}

// varint decodes git's offset varint (varint.c): big-endian groups of 7
// bits, each continuation adding one so that no value has two encodings.
// It reports the value and the bytes it took, refusing, as go-git does,
// any value that would not fit an int64.
func varint(s string) (v uint64, n int, ok bool) {
	if len(s) == 0 {
		return 0, 0, false
	}
	c := s[0]
	v = uint64(c & 0x7f)
	n = 1
	for c&0x80 != 0 {
		if v >= (math.MaxInt64-0x7f)>>7 || n >= len(s) {
			return 0, 0, false
		}
		c = s[n]
		n++
		v = (v+1)<<7 + uint64(c&0x7f)
	}
	return v, n, true
}

// extensions reads the extensions between the entries and the trailer:
// a signature, a size and that many bytes each.
func (p *indexParser) extensions(idx *index) error {
	for p.off < len(p.s) {
		if len(p.s)-p.off < 8 {
			return fmt.Errorf("%w: %d stray bytes after the entries", errCorrupt, len(p.s)-p.off)
		}
		sig := p.s[p.off : p.off+4]
		size := p.u32(p.off + 4)
		switch {
		case sig == "link", sig == "sdir":
			// Required, and read: a split index (split.go) and a sparse
			// index, whose directory entries (mode 040000, a name ending
			// in '/', skip-worktree) stand for whole trees outside the
			// sparse cone.
		case sig[0] < 'A' || sig[0] > 'Z':
			return fmt.Errorf("%w: required extension %q", errUnsupported, sig)
		}
		body := p.off + 8
		if uint64(size) > uint64(len(p.s)-body) {
			return fmt.Errorf("%w: extension %q runs past the end", errCorrupt, sig)
		}
		data := p.s[body : body+int(size)]
		var err error
		switch sig {
		case "TREE":
			err = readTree(idx, data)
		case "link":
			idx.link, err = parseLink(data)
		case "sdir":
			idx.sparse = true
		case "REUC":
			err = checkResolveUndo(data)
		case "EOIE":
			if len(data) < eoieLen {
				err = fmt.Errorf("%w: EOIE extension of %d bytes", errCorrupt, len(data))
			}
		}
		if err != nil {
			return err
		}
		p.off = body + int(size)
	}
	return nil
}

// readTree reads the cache-tree extension's root. Its entries are a path
// and NUL, an ASCII entry count (negative: invalidated), a space, an ASCII
// subtree count and a newline, then, for a valid entry, the tree's hash.
// Like go-git it reads the entries flat, checking every one; like go-git
// it takes an entry cut off before its hash as the end of the extension.
// The root is the first entry, and counts only with an empty path (git
// ignores a cache tree whose first entry has a name).
func readTree(idx *index, s string) error {
	idx.treeValid, idx.treeHash = false, plumbing.ZeroHash
	for first := true; ; first = false {
		nul := strings.IndexByte(s, 0)
		if nul < 0 {
			return nil
		}
		path := s[:nul]
		s = s[nul+1:]
		sp := strings.IndexByte(s, ' ')
		if sp < 0 {
			return nil
		}
		count, err := strconv.Atoi(s[:sp])
		if err != nil {
			return fmt.Errorf("%w: cache-tree entry count: %v", errCorrupt, err)
		}
		s = s[sp+1:]
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return nil
		}
		if _, err := strconv.Atoi(s[:nl]); err != nil {
			return fmt.Errorf("%w: cache-tree subtree count: %v", errCorrupt, err)
		}
		s = s[nl+1:]
		if count < 0 {
			continue
		}
		if len(s) == 0 {
			return nil
		}
		if len(s) < sha1.Size {
			return fmt.Errorf("%w: cache-tree hash cut short", errCorrupt)
		}
		if first && path == "" {
			idx.treeValid = true
			copy(idx.treeHash[:], s[:sha1.Size])
		}
		s = s[sha1.Size:]
	}
}

// checkResolveUndo checks the resolve-undo extension as go-git does,
// though nothing here needs its contents: go-git rejects an index whose
// REUC it cannot parse, and the fallback to go-git must not fail on an
// index this reader accepted. Entries are a NUL-terminated path, three
// NUL-terminated octal modes, and a hash for each non-zero mode; like
// go-git, an entry cut off at a field boundary ends the extension.
func checkResolveUndo(s string) error {
	for {
		nul := strings.IndexByte(s, 0)
		if nul < 0 {
			return nil
		}
		s = s[nul+1:]
		hashes := 0
		for range 3 {
			nul := strings.IndexByte(s, 0)
			if nul < 0 {
				return nil
			}
			m, err := strconv.ParseInt(s[:nul], 8, 64)
			if err != nil {
				return fmt.Errorf("%w: resolve-undo mode: %v", errCorrupt, err)
			}
			if m != 0 {
				hashes++
			}
			s = s[nul+1:]
		}
		for range hashes {
			if len(s) == 0 {
				return nil
			}
			if len(s) < sha1.Size {
				return fmt.Errorf("%w: resolve-undo hash cut short", errCorrupt)
			}
			s = s[sha1.Size:]
		}
	}
}

package gitdirty

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/corvidlabs/fledge-go/internal/bounded"
)

// A split index (core.splitIndex, `git update-index --split-index`) keeps
// most entries in a shared index file, $GIT_DIR/sharedindex.<hash>, and in
// the index itself only a link extension and the entries changed since:
//
//   - the shared index's hash;
//   - an EWAH bitmap of shared entries to delete;
//   - an EWAH bitmap of shared entries to replace, the index's first
//     entries replacing them in order (an empty name keeps the shared one);
//   - the index's remaining entries, added.
//
// go-git cannot read it (it rejects every lowercase extension), so without
// this neither the fast path nor its fallback could answer.

// splitLink is a parsed link extension: the bitmaps stay encoded until the
// shared index says how many bits they may hold.
type splitLink struct {
	shared     plumbing.Hash
	del, repl  string // EWAH bitmaps as stored; empty when absent
	hasBitmaps bool
}

// parseLink reads a link extension's body.
func parseLink(s string) (*splitLink, error) {
	if len(s) < len(plumbing.ZeroHash) {
		return nil, fmt.Errorf("%w: link extension of %d bytes", errCorrupt, len(s))
	}
	l := &splitLink{}
	copy(l.shared[:], s)
	s = s[len(l.shared):]
	if s == "" {
		return l, nil
	}
	var err error
	var n int
	if n, err = ewahLen(s); err != nil {
		return nil, err
	}
	l.del, s = s[:n], s[n:]
	if n, err = ewahLen(s); err != nil {
		return nil, err
	}
	l.repl, s = s[:n], s[n:]
	if s != "" {
		return nil, fmt.Errorf("%w: %d stray bytes after the link extension's bitmaps", errCorrupt, len(s))
	}
	l.hasBitmaps = true
	return l, nil
}

// ewahLen is the length of the EWAH bitmap at the start of s: a bit
// count, a word count, the 64-bit words and the last run word's position.
func ewahLen(s string) (int, error) {
	if len(s) < 8 {
		return 0, fmt.Errorf("%w: EWAH bitmap cut short", errCorrupt)
	}
	words := uint64(be32(s[4:]))
	n := 8 + words*8 + 4
	if n > uint64(len(s)) {
		return 0, fmt.Errorf("%w: EWAH bitmap of %d words runs past the end", errCorrupt, words)
	}
	return int(n), nil
}

// ewahBits decodes an EWAH bitmap into a bitset of n bits; a bitmap that
// reaches past n is corrupt. Memory is bounded by n, whatever the bitmap
// claims.
func ewahBits(s string, n int) ([]uint64, error) {
	out := make([]uint64, (n+63)/64)
	if s == "" {
		return out, nil
	}
	if bits := be32(s); uint64(bits) > uint64(n) {
		return nil, fmt.Errorf("%w: EWAH bitmap of %d bits for %d shared entries", errCorrupt, bits, n)
	}
	words := int(be32(s[4:]))
	w := s[8 : 8+words*8]
	word := func(i int) uint64 { return uint64(be32(w[i*8:]))<<32 | uint64(be32(w[i*8+4:])) }
	pos := 0 // in 64-bit words of out
	for i := 0; i < words; {
		rlw := word(i)
		i++
		run, runLen, lits := rlw&1 != 0, (rlw>>1)&0xffffffff, rlw>>33
		if runLen > uint64(len(out)-pos) {
			return nil, fmt.Errorf("%w: EWAH run past %d bits", errCorrupt, n)
		}
		if run {
			for j := pos; j < pos+int(runLen); j++ {
				out[j] = ^uint64(0)
			}
		}
		pos += int(runLen)
		if lits > uint64(words-i) || lits > uint64(len(out)-pos) {
			return nil, fmt.Errorf("%w: EWAH literal words past the end", errCorrupt)
		}
		for j := 0; j < int(lits); j++ {
			out[pos] = word(i)
			pos++
			i++
		}
	}
	if n%64 != 0 && len(out) > 0 && out[len(out)-1]>>(n%64) != 0 {
		return nil, fmt.Errorf("%w: EWAH bits past %d", errCorrupt, n)
	}
	return out, nil
}

func bitSet(b []uint64, i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// mergeShared reads the shared index idx links to (in dir) and folds idx
// into it, as git's merge_base_index does. The result keeps idx's cached
// tree, which describes the whole index.
func mergeShared(idx *index, dir string) error {
	link := idx.link
	idx.link = nil
	if link.shared.IsZero() {
		return nil // the index stands alone
	}
	path := filepath.Join(dir, "sharedindex."+hex.EncodeToString(link.shared[:]))
	data, err := bounded.ReadFile(path, maxIndexSize)
	if err != nil {
		return fmt.Errorf("split index: %w", err)
	}
	shared, err := parseIndex(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if shared.link != nil {
		return fmt.Errorf("%w: shared index %s is itself split", errCorrupt, path)
	}
	n := len(shared.entries)
	del, err := ewahBits(link.del, n)
	if err != nil {
		return err
	}
	repl, err := ewahBits(link.repl, n)
	if err != nil {
		return err
	}
	merged := make([]indexEntry, 0, n+len(idx.entries))
	k := 0 // idx's next entry, while it replaces shared ones
	for i := range shared.entries {
		e := shared.entries[i]
		if bitSet(repl, i) {
			if k == len(idx.entries) {
				return fmt.Errorf("%w: split index replaces more entries than it holds", errCorrupt)
			}
			name := e.name
			e = idx.entries[k]
			k++
			if e.name == "" {
				e.name = name
			}
		}
		if !bitSet(del, i) {
			merged = append(merged, e)
		}
	}
	merged = append(merged, idx.entries[k:]...)
	sort.SliceStable(merged, func(a, b int) bool {
		if merged[a].name != merged[b].name {
			return merged[a].name < merged[b].name
		}
		return merged[a].stage < merged[b].stage
	})
	idx.entries = merged
	idx.sparse = idx.sparse || shared.sparse
	return nil
}

package gitdirty

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A split index, written by git in each state that exercises the link
// extension (replaced, deleted and added entries, an entry replaced with an
// empty name), reads as the same entries `git ls-files --stage` lists.
func TestSplitIndexMatchesLsFiles(t *testing.T) {
	t.Parallel()
	r := newIxRepo(t)
	baseFiles(r)
	r.commitAll("c")
	r.git("update-index", "--split-index")
	check := func(step string) {
		t.Helper()
		idx, err := readIndex(r.indexPath())
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if err := sameAsLsFiles(idx, r.git("ls-files", "--stage", "-z")); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
	check("fresh split")
	r.write("a.txt", "changed\n")
	r.git("add", "a.txt")
	check("one entry replaced")
	r.git("rm", "-q", "--cached", "dir/b.txt")
	check("one entry deleted")
	r.write("new/z.txt", "z\n")
	r.write("0first.txt", "0\n")
	r.git("add", "new/z.txt", "0first.txt")
	check("entries added, one before every shared entry")
	r.git("update-index", "--split-index")
	check("re-split")
	r.git("-c", "splitIndex.maxPercentChange=0", "update-index", "--split-index")
	check("rewritten shared index")
	if idx, err := parseIndex(mustRead(t, r.indexPath())); err != nil || idx.link == nil {
		t.Fatalf("the fixture is no longer a split index: %v", err)
	}
}

// A split index whose shared file is missing is an error, not an empty
// index (which would read as "everything deleted").
func TestSplitIndexMissingShared(t *testing.T) {
	t.Parallel()
	r := newIxRepo(t)
	baseFiles(r)
	r.commitAll("c")
	r.git("update-index", "--split-index")
	shared, _ := filepath.Glob(filepath.Join(r.dir, ".git", "sharedindex.*"))
	if len(shared) == 0 {
		t.Fatal("git wrote no shared index")
	}
	for _, p := range shared {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := readIndex(r.indexPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("readIndex without the shared index = %v, want a not-exist error", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ewah builds an EWAH bitmap of bits bits from 64-bit words as stored.
func ewah(bits uint32, words ...uint64) string {
	b := binary.BigEndian.AppendUint32(nil, bits)
	b = binary.BigEndian.AppendUint32(b, uint32(len(words)))
	for _, w := range words {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return string(binary.BigEndian.AppendUint32(b, 0))
}

// rlw is a run word: run bit, run length (words), literal words after it.
func rlw(run bool, runLen, lits uint64) uint64 {
	w := runLen<<1 | lits<<33
	if run {
		w |= 1
	}
	return w
}

func TestEWAHBits(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    string
		n    int
		set  []int // want exactly these bits
		err  bool
	}{
		{"empty", "", 10, nil, false},
		{"literals", ewah(131, rlw(false, 0, 3), 1|8, 1, 4), 200, []int{0, 3, 64, 130}, false},
		{"zero run then literal", ewah(129, rlw(false, 2, 1), 2), 130, []int{129}, false},
		{"ones run", ewah(128, rlw(true, 2, 0)), 128, seq(0, 128), false},
		{"ones run, literal after", ewah(192, rlw(true, 1, 1), 1<<63), 192, append(seq(0, 64), 127), false},
		{"two run words", ewah(130, rlw(false, 0, 1), 1, rlw(false, 1, 1), 2), 130, []int{0, 129}, false},
		{"more bits than entries", ewah(300, rlw(false, 0, 1), 1), 10, nil, true},
		{"run past the end", ewah(64, rlw(true, 3, 0)), 64, nil, true},
		{"huge run", ewah(64, rlw(true, 0xffffffff, 0)), 64, nil, true},
		{"literals past the words", ewah(64, rlw(false, 0, 5), 1), 64, nil, true},
		{"bit past n", ewah(10, rlw(false, 0, 1), 1<<20), 10, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bits, err := ewahBits(tc.s, tc.n)
			if tc.err {
				if !errors.Is(err, errCorrupt) {
					t.Fatalf("ewahBits = %v, want errCorrupt", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[int]bool{}
			for _, i := range tc.set {
				want[i] = true
			}
			for i := 0; i < tc.n; i++ {
				if bitSet(bits, i) != want[i] {
					t.Errorf("bit %d = %v, want %v", i, bitSet(bits, i), want[i])
				}
			}
		})
	}
}

func seq(from, to int) []int {
	var s []int
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// FuzzEWAH: any bytes, any shared-index size: no panic, memory bounded by
// the size, and no bit at or past it.
func FuzzEWAH(f *testing.F) {
	f.Add([]byte(ewah(131, rlw(false, 0, 3), 1|8, 1, 4)), uint16(200))
	f.Add([]byte(ewah(128, rlw(true, 2, 0))), uint16(128))
	f.Add([]byte(ewah(64, rlw(true, 0xffffffff, 0))), uint16(64))
	f.Fuzz(func(t *testing.T, data []byte, n16 uint16) {
		n := int(n16)
		s := string(data)
		l, err := ewahLen(s)
		if err != nil {
			return
		}
		bits, err := ewahBits(s[:l], n)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error %v is not errCorrupt", err)
			}
			return
		}
		if len(bits) != (n+63)/64 {
			t.Fatalf("%d words for %d bits", len(bits), n)
		}
		for i := n; i < len(bits)*64; i++ {
			if bitSet(bits, i) {
				t.Fatalf("bit %d set, past %d", i, n)
			}
		}
	})
}

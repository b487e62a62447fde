package gitdirty

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	gogitindex "github.com/go-git/go-git/v5/plumbing/format/index"
)

// ixRepo is a throwaway repository driven by the git CLI, which writes the
// real index files these tests read.
type ixRepo struct {
	tb  testing.TB
	dir string
	env []string
}

func newIxRepo(tb testing.TB) *ixRepo {
	tb.Helper()
	home := tb.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}
	for _, kv := range os.Environ() {
		// The caller's GIT_DIR, GIT_INDEX_FILE and the like would point
		// git somewhere else.
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	r := &ixRepo{tb: tb, dir: tb.TempDir(), env: env}
	r.git("init", "-q", "-b", "main")
	return r
}

// run runs git in the repository and returns its stdout.
func (r *ixRepo) run(args ...string) (string, error) {
	c := exec.Command("git", append([]string{"-c", "user.name=ix", "-c", "user.email=ix@example.com"}, args...)...)
	c.Dir = r.dir
	c.Env = r.env
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %v\n%s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String(), nil
}

func (r *ixRepo) git(args ...string) string {
	r.tb.Helper()
	out, err := r.run(args...)
	if err != nil {
		r.tb.Fatal(err)
	}
	return out
}

func (r *ixRepo) write(name, content string) {
	r.tb.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.tb.Fatal(err)
	}
}

func (r *ixRepo) commitAll(msg string) {
	r.tb.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

func (r *ixRepo) indexPath() string { return filepath.Join(r.dir, ".git", "index") }

// ixWant is what a fixture's index must decode to, beyond agreeing with
// go-git's decoder and with `git ls-files --stage`.
type ixWant struct {
	version      uint32
	unsupported  bool     // parseIndex must return errUnsupported
	sparse       bool     // a sparse index (sdir), compared with ls-files --sparse
	split        bool     // a split index: parseIndex keeps its link (split_test.go checks the merge)
	exts         []string // extension signatures the file must hold, so the fixture tests what it claims
	checkTree    bool     // treeValid must equal tree != ""
	tree         string   // the root tree's hash when valid
	assumeValid  []string
	skipWorktree []string
	intentToAdd  []string
	stages       map[string][]int // a path's stages, in file order
	zeroTrailer  bool
}

type ixFixtureDef struct {
	name  string
	build func(r *ixRepo) ixWant
}

// longName is a path whose length does not fit the 12 bits of an entry's
// flags. --cacheinfo adds it without a file, which no file system allows.
func longName(n int) string { return "long/" + strings.Repeat("x", n-len("long/")) }

func addLongNames(r *ixRepo, lengths ...int) {
	blob := strings.TrimSpace(r.git("hash-object", "-w", "a.txt"))
	for _, n := range lengths {
		r.git("update-index", "--add", "--cacheinfo", "100644,"+blob+","+longName(n))
	}
}

func baseFiles(r *ixRepo) {
	r.write("a.txt", "a\n")
	r.write("dir/b.txt", "b\n")
	r.write("dir/sub/c.txt", "c\n")
	r.write("exec.sh", "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(r.dir, "exec.sh"), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(r.dir, "link")); err != nil {
		r.tb.Fatal(err)
	}
	for i := range 12 {
		r.write(fmt.Sprintf("src/pkg%d/file%02d.go", i%4, i), fmt.Sprintf("package p%d\n", i))
	}
}

func conflicted(r *ixRepo) {
	r.write("f.txt", "base\n")
	r.write("g.txt", "base\n")
	r.write("h.txt", "same\n")
	r.commitAll("base")
	r.git("checkout", "-q", "-b", "other")
	r.write("f.txt", "other\n")
	if err := os.Remove(filepath.Join(r.dir, "g.txt")); err != nil {
		r.tb.Fatal(err)
	}
	r.commitAll("other")
	r.git("checkout", "-q", "main")
	r.write("f.txt", "main\n")
	r.write("g.txt", "main\n")
	r.commitAll("main")
	if _, err := r.run("merge", "-q", "other"); err == nil {
		r.tb.Fatal("merge succeeded; the fixture needs a conflict")
	}
}

func headTree(r *ixRepo) string { return strings.TrimSpace(r.git("rev-parse", "HEAD^{tree}")) }

var ixFixtureDefs = []ixFixtureDef{
	{"v2", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.git("add", "-A")
		addLongNames(r, 0xffe, 0xfff, 0x1000, 5000)
		r.git("commit", "-q", "-m", "c")
		return ixWant{version: 2, exts: []string{"TREE"}, checkTree: true, tree: headTree(r)}
	}},
	{"v2-root-invalid", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		// Staging a top-level change invalidates the root, not dir/.
		r.write("a.txt", "changed\n")
		r.git("add", "a.txt")
		return ixWant{version: 2, exts: []string{"TREE"}, checkTree: true}
	}},
	{"v2-all-invalid", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		r.write("dir/sub/c.txt", "changed\n")
		r.git("add", "dir/sub/c.txt")
		return ixWant{version: 2, exts: []string{"TREE"}, checkTree: true}
	}},
	{"v3", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		r.git("update-index", "--index-version", "3")
		r.git("update-index", "--skip-worktree", "dir/b.txt", "src/pkg1/file01.go")
		r.write("new.txt", "new\n")
		r.git("add", "-N", "new.txt")
		return ixWant{version: 3, skipWorktree: []string{"dir/b.txt", "src/pkg1/file01.go"}, intentToAdd: []string{"new.txt"}}
	}},
	{"assume-unchanged", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		r.git("update-index", "--assume-unchanged", "a.txt", "dir/sub/c.txt")
		return ixWant{version: 2, assumeValid: []string{"a.txt", "dir/sub/c.txt"}}
	}},
	{"v4", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.git("add", "-A")
		addLongNames(r, 0xfff, 5000)
		r.git("commit", "-q", "-m", "c")
		r.git("update-index", "--index-version", "4")
		return ixWant{version: 4, exts: []string{"TREE"}, checkTree: true, tree: headTree(r)}
	}},
	{"v4-flags", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		r.git("update-index", "--index-version", "4")
		r.git("update-index", "--skip-worktree", "src/pkg2/file02.go")
		r.write("src/pkg2/new.go", "new\n")
		r.git("add", "-N", "src/pkg2/new.go")
		return ixWant{version: 4, skipWorktree: []string{"src/pkg2/file02.go"}, intentToAdd: []string{"src/pkg2/new.go"}}
	}},
	{"conflict", func(r *ixRepo) ixWant {
		conflicted(r)
		return ixWant{version: 2, stages: map[string][]int{"f.txt": {1, 2, 3}, "g.txt": {1, 2}, "h.txt": {0}}}
	}},
	{"resolve-undo", func(r *ixRepo) ixWant {
		conflicted(r)
		r.write("f.txt", "resolved\n")
		r.git("add", "f.txt", "g.txt")
		return ixWant{version: 2, exts: []string{"REUC"}, stages: map[string][]int{"f.txt": {0}, "g.txt": {0}}}
	}},
	{"skiphash", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		r.git("-c", "index.skipHash=true", "update-index", "--force-write")
		data, err := os.ReadFile(r.indexPath())
		if err != nil {
			r.tb.Fatal(err)
		}
		// git before 2.40 ignores index.skipHash; write the zero
		// trailer later versions write.
		clear(data[len(data)-sha1.Size:])
		if err := os.WriteFile(r.indexPath(), data, 0o644); err != nil {
			r.tb.Fatal(err)
		}
		if out := r.git("ls-files", "a.txt"); out != "a.txt\n" {
			r.tb.Fatalf("git cannot read the zero-trailer index: %q", out)
		}
		return ixWant{version: 2, exts: []string{"TREE"}, checkTree: true, tree: headTree(r), zeroTrailer: true}
	}},
	{"eoie-ieot-untr", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		r.git("update-index", "--untracked-cache")
		r.git("-c", "core.untrackedCache=true", "status", "--porcelain")
		r.git("-c", "index.recordEndOfIndexEntries=true", "-c", "index.recordOffsetTable=true",
			"-c", "index.threads=2", "-c", "core.untrackedCache=true", "update-index", "--force-write")
		return ixWant{version: 2, exts: []string{"TREE", "UNTR", "EOIE", "IEOT"}, checkTree: true, tree: headTree(r)}
	}},
	{"split", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		r.git("update-index", "--split-index")
		return ixWant{split: true, exts: []string{"link"}}
	}},
	{"sparse", func(r *ixRepo) ixWant {
		baseFiles(r)
		r.commitAll("c")
		r.git("sparse-checkout", "init", "--cone", "--sparse-index")
		r.git("sparse-checkout", "set", "dir")
		return ixWant{version: 3, sparse: true, exts: []string{"sdir"}, skipWorktree: []string{"src/"}}
	}},
}

type ixFile struct {
	data    []byte
	want    ixWant
	lsFiles string // `git ls-files --stage -z`
}

var ixCache struct {
	sync.Mutex
	files map[string]*ixFileOnce
}

type ixFileOnce struct {
	once sync.Once
	file *ixFile
}

// ixFixture builds the named fixture once per test binary.
func ixFixture(tb testing.TB, name string) *ixFile {
	tb.Helper()
	ixCache.Lock()
	if ixCache.files == nil {
		ixCache.files = map[string]*ixFileOnce{}
	}
	o := ixCache.files[name]
	if o == nil {
		o = &ixFileOnce{}
		ixCache.files[name] = o
	}
	ixCache.Unlock()
	o.once.Do(func() {
		i := slices.IndexFunc(ixFixtureDefs, func(d ixFixtureDef) bool { return d.name == name })
		r := newIxRepo(tb)
		want := ixFixtureDefs[i].build(r)
		data, err := os.ReadFile(r.indexPath())
		if err != nil {
			tb.Fatal(err)
		}
		f := &ixFile{data: data, want: want}
		switch {
		case want.split:
		case want.sparse:
			f.lsFiles = r.git("ls-files", "--stage", "--sparse", "-z")
		case !want.unsupported:
			f.lsFiles = r.git("ls-files", "--stage", "-z")
		}
		o.file = f
	})
	if o.file == nil {
		tb.Fatalf("fixture %s failed to build", name)
	}
	return o.file
}

// withTrailer returns body followed by its SHA-1, as git writes it.
func withTrailer(body []byte) []byte {
	sum := sha1.Sum(body)
	return append(body[:len(body):len(body)], sum[:]...)
}

// ixDiff runs parseIndex and go-git's decoder on data and describes where
// they disagree, or returns nil. Allowed disagreements, each documented at
// the top of index.go: errUnsupported (the caller falls back to go-git);
// an all-zero trailer (go-git v5.19.3 does not know index.skipHash, so it
// is given the real checksum instead); an EOIE extension of other than 24
// bytes (what go-git parses after one depends on its buffering).
func ixDiff(data []byte) error {
	mine, err := parseIndex(data)
	if errors.Is(err, errUnsupported) || (err == nil && (mine.sparse || mine.link != nil)) {
		return nil // go-git 5.19.3 rejects the sdir and link extensions: nothing to compare
	}
	if len(data) >= sha1.Size && allZero(data[len(data)-sha1.Size:]) {
		data = withTrailer(data[:len(data)-sha1.Size])
	}
	var theirs gogitindex.Index
	gerr := gogitindex.NewDecoder(bytes.NewReader(data)).Decode(&theirs)
	switch {
	case err != nil && gerr != nil:
		return nil
	case (err != nil || gerr != nil) && hasOddEOIE(data):
		return nil
	case err != nil:
		return fmt.Errorf("go-git accepts what parseIndex rejects: %v", err)
	case gerr != nil:
		return fmt.Errorf("parseIndex accepts what go-git rejects: %v", gerr)
	}
	return sameIndex(mine, &theirs)
}

// hasOddEOIE reports whether data holds "EOIE" followed by a size other
// than the 24 bytes git writes, wherever it is: a cheap over-approximation
// of "has an EOIE extension of another size".
func hasOddEOIE(data []byte) bool {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte("EOIE"))
		if j < 0 {
			return false
		}
		i += j + 4
		if len(data)-i < 4 || binary.BigEndian.Uint32(data[i:]) != eoieLen {
			return true
		}
	}
}

func sameIndex(mine *index, theirs *gogitindex.Index) error {
	if mine.version != theirs.Version {
		return fmt.Errorf("version %d, go-git %d", mine.version, theirs.Version)
	}
	if len(mine.entries) != len(theirs.Entries) {
		return fmt.Errorf("%d entries, go-git %d", len(mine.entries), len(theirs.Entries))
	}
	for i := range mine.entries {
		if err := sameEntry(&mine.entries[i], theirs.Entries[i]); err != nil {
			return fmt.Errorf("entry %d (%q): %v", i, mine.entries[i].name, err)
		}
	}
	// go-git drops invalidated cache-tree entries, so its first entry is
	// the root only when ours is valid; then they must agree.
	if mine.treeValid {
		if theirs.Cache == nil || len(theirs.Cache.Entries) == 0 {
			return fmt.Errorf("root tree %s valid, go-git has no cache tree", mine.treeHash)
		}
		root := theirs.Cache.Entries[0]
		if root.Path != "" || root.Hash != mine.treeHash {
			return fmt.Errorf("root tree %s, go-git's first tree entry %q %s", mine.treeHash, root.Path, root.Hash)
		}
	} else if mine.treeHash != plumbing.ZeroHash {
		return fmt.Errorf("tree hash %s without a valid tree", mine.treeHash)
	}
	if theirs.Cache == nil && mine.treeValid {
		return errors.New("root tree valid without a TREE extension")
	}
	return nil
}

func sameEntry(m *indexEntry, g *gogitindex.Entry) error {
	type fields struct {
		Name                      string
		Hash                      plumbing.Hash
		Mode                      uint32
		Stage                     int
		SkipWorktree, IntentToAdd bool
		Dev, Ino, UID, GID, Size  uint32
	}
	a := fields{m.name, m.hash, uint32(m.mode), m.stage, m.skipWorktree, m.intentToAdd, m.dev, m.ino, m.uid, m.gid, m.size}
	b := fields{g.Name, g.Hash, uint32(g.Mode), int(g.Stage), g.SkipWorktree, g.IntentToAdd, g.Dev, g.Inode, g.UID, g.GID, g.Size}
	if a != b {
		return fmt.Errorf("\n ours   %+v\n go-git %+v", a, b)
	}
	if err := sameTime("ctime", m.ctimeSec, m.ctimeNsec, g.CreatedAt); err != nil {
		return err
	}
	return sameTime("mtime", m.mtimeSec, m.mtimeNsec, g.ModifiedAt)
}

// sameTime compares raw seconds and nanoseconds with go-git's time.Time,
// which is zero when both are and otherwise time.Unix of them (which
// carries nanoseconds past a second into the seconds).
func sameTime(what string, sec, nsec uint32, t time.Time) error {
	if sec == 0 && nsec == 0 {
		if !t.IsZero() {
			return fmt.Errorf("%s zero, go-git %v", what, t)
		}
		return nil
	}
	if want := time.Unix(int64(sec), int64(nsec)); !t.Equal(want) {
		return fmt.Errorf("%s %d.%09d, go-git %v", what, sec, nsec, t)
	}
	return nil
}

// sameAsLsFiles compares names, modes, hashes and stages with what git
// itself reads from the index.
func sameAsLsFiles(idx *index, ls string) error {
	var got []string
	for _, e := range idx.entries {
		got = append(got, fmt.Sprintf("%06o %s %d\t%s", uint32(e.mode), e.hash, e.stage, e.name))
	}
	want := strings.Split(strings.TrimSuffix(ls, "\x00"), "\x00")
	if !slices.Equal(got, want) {
		return fmt.Errorf("entries differ from git ls-files --stage:\n ours %q\n git  %q", got, want)
	}
	return nil
}

func TestIndexGit(t *testing.T) {
	t.Parallel()
	for _, def := range ixFixtureDefs {
		t.Run(def.name, func(t *testing.T) {
			t.Parallel()
			f := ixFixture(t, def.name)
			w := f.want
			for _, sig := range w.exts {
				if !bytes.Contains(f.data, []byte(sig)) {
					t.Errorf("fixture has no %s extension; it no longer tests what it claims", sig)
				}
			}
			idx, err := parseIndex(f.data)
			if w.unsupported {
				if !errors.Is(err, errUnsupported) {
					t.Fatalf("parseIndex = %v, want errUnsupported", err)
				}
				return
			}
			if w.split {
				if err != nil || idx.link == nil || idx.link.shared.IsZero() {
					t.Fatalf("parseIndex = %+v, %v; want a link to a shared index", idx, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := ixDiff(f.data); err != nil {
				t.Error(err)
			}
			if err := sameAsLsFiles(idx, f.lsFiles); err != nil {
				t.Error(err)
			}
			if idx.sparse != w.sparse {
				t.Errorf("sparse = %v, want %v", idx.sparse, w.sparse)
			}
			if idx.version != w.version {
				t.Errorf("version %d, want %d", idx.version, w.version)
			}
			if w.checkTree {
				if idx.treeValid != (w.tree != "") || (w.tree != "" && idx.treeHash.String() != w.tree) {
					t.Errorf("treeValid %v treeHash %s, want tree %q", idx.treeValid, idx.treeHash, w.tree)
				}
			}
			var assume, skip, ita []string
			stages := map[string][]int{}
			for _, e := range idx.entries {
				if e.assumeValid {
					assume = append(assume, e.name)
				}
				if e.skipWorktree {
					skip = append(skip, e.name)
				}
				if e.intentToAdd {
					ita = append(ita, e.name)
				}
				stages[e.name] = append(stages[e.name], e.stage)
			}
			if !slices.Equal(assume, w.assumeValid) {
				t.Errorf("assume-valid %q, want %q", assume, w.assumeValid)
			}
			if !slices.Equal(skip, w.skipWorktree) {
				t.Errorf("skip-worktree %q, want %q", skip, w.skipWorktree)
			}
			if !slices.Equal(ita, w.intentToAdd) {
				t.Errorf("intent-to-add %q, want %q", ita, w.intentToAdd)
			}
			for name, want := range w.stages {
				if !slices.Equal(stages[name], want) {
					t.Errorf("%s: stages %v, want %v", name, stages[name], want)
				}
			}
		})
	}
}

func TestIndexLongNames(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"v2", "v4"} {
		idx, err := parseIndex(ixFixture(t, fixture).data)
		if err != nil {
			t.Fatal(err)
		}
		var lengths []int
		for _, e := range idx.entries {
			if strings.HasPrefix(e.name, "long/") {
				lengths = append(lengths, len(e.name))
			}
		}
		// ls-files sorts them by name: the longer, the later.
		want := map[string][]int{"v2": {0xffe, 0xfff, 0x1000, 5000}, "v4": {0xfff, 5000}}[fixture]
		if !slices.Equal(lengths, want) {
			t.Errorf("%s: long names of lengths %v, want %v", fixture, lengths, want)
		}
	}
}

// ixSmallFixtures are the fixtures small enough to cut at every byte.
var ixSmallFixtures = []string{"v2-root-invalid", "v3", "v4-flags", "conflict", "resolve-undo", "eoie-ieot-untr"}

func TestIndexTruncated(t *testing.T) {
	t.Parallel()
	for _, name := range ixSmallFixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := ixFixture(t, name).data
			for n := range len(data) {
				if _, err := parseIndex(data[:n]); err == nil {
					t.Fatalf("the first %d of %d bytes parsed", n, len(data))
				}
				// The same cut with its checksum put right: the bytes
				// before the trailer, cut, must decode as go-git does.
				if n <= len(data)-sha1.Size {
					if err := ixDiff(withTrailer(data[:n])); err != nil {
						t.Fatalf("body cut to %d bytes: %v", n, err)
					}
				}
			}
		})
	}
}

func TestIndexCorrupted(t *testing.T) {
	t.Parallel()
	for _, name := range ixSmallFixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := ixFixture(t, name).data
			body := data[:len(data)-sha1.Size]
			bad := bytes.Clone(data)
			for i := range body {
				// A low bit, a high bit, or all of them, in turn; the
				// fuzz target tries the rest.
				flip := [...]byte{0x01, 0x80, 0xff}[i%3]
				bad[i] ^= flip
				if _, err := parseIndex(bad); !errors.Is(err, errCorrupt) && !errors.Is(err, errUnsupported) {
					t.Fatalf("byte %d ^ %#x with a stale checksum: %v, want a corrupt index", i, flip, err)
				}
				if err := ixDiff(withTrailer(bad[:len(body)])); err != nil {
					t.Fatalf("byte %d ^ %#x: %v", i, flip, err)
				}
				bad[i] ^= flip
			}
		})
	}
}

// ixBuilder writes synthetic index bodies for the hostile cases no git
// writes.
type ixBuilder struct{ b []byte }

func newIxBuilder(version, count uint32) *ixBuilder {
	w := &ixBuilder{b: []byte("DIRC")}
	return w.u32(version).u32(count)
}

func (w *ixBuilder) u32(v uint32) *ixBuilder { w.b = binary.BigEndian.AppendUint32(w.b, v); return w }
func (w *ixBuilder) u16(v uint16) *ixBuilder { w.b = binary.BigEndian.AppendUint16(w.b, v); return w }
func (w *ixBuilder) raw(s string) *ixBuilder { w.b = append(w.b, s...); return w }

// entry writes an entry's fixed part: stat words 1..10 (mode 0100644 in
// the seventh), a hash of 0xab bytes, and flags.
func (w *ixBuilder) entry(flags uint16) *ixBuilder {
	for i := range uint32(10) {
		if i == 6 {
			w.u32(0o100644)
		} else {
			w.u32(i + 1)
		}
	}
	w.raw(strings.Repeat("\xab", 20))
	return w.u16(flags)
}

// v2name writes a name and the NULs that pad an entry with a fixed part
// of fixed bytes.
func (w *ixBuilder) v2name(name string, fixed int) *ixBuilder {
	return w.raw(name).raw(strings.Repeat("\x00", 8-(fixed+len(name))%8))
}

func (w *ixBuilder) ext(sig, data string) *ixBuilder {
	return w.raw(sig).u32(uint32(len(data))).raw(data)
}

func (w *ixBuilder) file() []byte { return withTrailer(w.b) }

func TestIndexHostile(t *testing.T) {
	t.Parallel()
	treeRoot := "\x00" + "3 1\n" + strings.Repeat("\x11", 20)
	for _, tc := range []struct {
		name string
		data []byte
		want error // errCorrupt, errUnsupported, or nil for success
	}{
		{"empty", nil, errCorrupt},
		{"short", []byte("DIRC\x00\x00\x00\x02"), errCorrupt},
		{"signature", withTrailer([]byte("DIRX\x00\x00\x00\x02\x00\x00\x00\x00")), errCorrupt},
		{"version 1", newIxBuilder(1, 0).file(), errUnsupported},
		{"version 5", newIxBuilder(5, 0).file(), errUnsupported},
		{"no entries", newIxBuilder(2, 0).file(), nil},
		{"count beyond the bytes", newIxBuilder(2, 0xffffffff).entry(1).v2name("a", 62).file(), errCorrupt},
		{"name beyond the bytes", newIxBuilder(2, 1).entry(0xffe).raw("abc").file(), errCorrupt},
		{"long name without NUL", newIxBuilder(2, 1).entry(0xfff).raw("abc").file(), errCorrupt},
		{"padding cut short", newIxBuilder(2, 1).entry(1).raw("a").file(), errCorrupt},
		{"extended flags in v2", newIxBuilder(2, 1).entry(flagExtended|1).u16(extSkipWorktree).v2name("a", 64).file(), nil},
		{"unknown extended flag", newIxBuilder(3, 1).entry(flagExtended|1).u16(1).v2name("a", 64).file(), errUnsupported},
		{"v4 strip on first entry", newIxBuilder(4, 1).entry(1).raw("\x01a\x00").file(), errCorrupt},
		{"v4 strip past previous", newIxBuilder(4, 2).entry(1).raw("\x00a\x00").entry(1).raw("\x02b\x00").file(), errCorrupt},
		{"v4 varint cut", newIxBuilder(4, 1).entry(1).raw("\x80").file(), errCorrupt},
		{"v4 varint overflow", newIxBuilder(4, 1).entry(1).raw(strings.Repeat("\xff", 10) + "\x00a\x00").file(), errCorrupt},
		{"v4 name without NUL", newIxBuilder(4, 1).entry(1).raw("\x00abc").file(), errCorrupt},
		{"stray bytes", newIxBuilder(2, 0).raw("TREE").file(), errCorrupt},
		{"extension past the end", newIxBuilder(2, 0).raw("ZZZZ").u32(1).file(), errCorrupt},
		{"optional extension", newIxBuilder(2, 0).ext("ZZZZ", "anything").file(), nil},
		{"link", newIxBuilder(2, 0).ext("link", strings.Repeat("\x00", 20)).file(), nil},
		{"link short", newIxBuilder(2, 0).ext("link", strings.Repeat("\x00", 12)).file(), errCorrupt},
		{"link bitmap cut", newIxBuilder(2, 0).ext("link", strings.Repeat("\x00", 20)+"\x00\x00\x00\x01\x00\x00\x00\x09").file(), errCorrupt},
		{"link one bitmap", newIxBuilder(2, 0).ext("link", strings.Repeat("\x00", 20)+strings.Repeat("\x00", 12)).file(), errCorrupt},
		{"link stray", newIxBuilder(2, 0).ext("link", strings.Repeat("\x00", 20)+strings.Repeat("\x00", 25)).file(), errCorrupt},
		{"sdir", newIxBuilder(2, 0).ext("sdir", "").file(), nil},
		{"lower-case unknown", newIxBuilder(2, 0).ext("zzzz", "").file(), errUnsupported},
		{"EOIE short", newIxBuilder(2, 0).ext("EOIE", "1234").file(), errCorrupt},
		{"EOIE", newIxBuilder(2, 0).ext("EOIE", strings.Repeat("\x00", 24)).file(), nil},
		{"EOIE long", newIxBuilder(2, 0).ext("EOIE", strings.Repeat("\x00", 5000)).ext("ZZZZ", "").file(), nil},
		{"TREE", newIxBuilder(2, 0).ext("TREE", treeRoot).file(), nil},
		{"TREE bad count", newIxBuilder(2, 0).ext("TREE", "\x00x 1\n").file(), errCorrupt},
		{"TREE bad subtrees", newIxBuilder(2, 0).ext("TREE", "\x003 x\n").file(), errCorrupt},
		{"TREE hash cut", newIxBuilder(2, 0).ext("TREE", treeRoot[:len(treeRoot)-1]).file(), errCorrupt},
		{"TREE cut at a field", newIxBuilder(2, 0).ext("TREE", "\x003 1").file(), nil},
		{"REUC bad mode", newIxBuilder(2, 0).ext("REUC", "f\x00100644\x009\x000\x00").file(), errCorrupt},
		{"REUC hash cut", newIxBuilder(2, 0).ext("REUC", "f\x00100644\x000\x000\x00abc").file(), errCorrupt},
		{"REUC", newIxBuilder(2, 0).ext("REUC", "f\x00100644\x000\x00100644\x00"+strings.Repeat("\x01", 40)).file(), nil},
		{"checksum", append(newIxBuilder(2, 0).b, strings.Repeat("\x01", 20)...), errCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx, err := parseIndex(tc.data)
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("parseIndex: %v", err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("parseIndex = %v, %v; want %v", idx, err, tc.want)
			}
			if len(tc.data) >= sha1.Size {
				if err := ixDiff(tc.data); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestIndexGoGitDepartures pins go-git's side of each departure listed at
// the top of index.go, so that a go-git upgrade that changes one shows up
// here and the exception in ixDiff can go.
func TestIndexGoGitDepartures(t *testing.T) {
	t.Parallel()
	goGit := func(data []byte) error {
		var idx gogitindex.Index
		return gogitindex.NewDecoder(bytes.NewReader(data)).Decode(&idx)
	}
	zeroTrailer := newIxBuilder(2, 0).b
	zeroTrailer = append(zeroTrailer, make([]byte, sha1.Size)...)
	for _, tc := range []struct {
		name     string
		data     []byte
		goGitErr bool
		ours     error
	}{
		{"zero trailer", zeroTrailer, true, nil},
		{"unknown extended flag", newIxBuilder(3, 1).entry(flagExtended|1).u16(1<<15).v2name("a", 64).file(), false, errUnsupported},
		{"EOIE longer than go-git's buffer", newIxBuilder(2, 0).ext("EOIE", strings.Repeat("\x00", 5000)).file(), true, nil},
	} {
		if err := goGit(tc.data); (err != nil) != tc.goGitErr {
			t.Errorf("%s: go-git's decoder returns %v; the departure documented in index.go has changed", tc.name, err)
		}
		if _, err := parseIndex(tc.data); !errors.Is(err, tc.ours) && !(err == nil && tc.ours == nil) {
			t.Errorf("%s: parseIndex = %v, want %v", tc.name, err, tc.ours)
		}
	}
}

func TestIndexChecksumErrorSaysCorrupt(t *testing.T) {
	t.Parallel()
	data := bytes.Clone(ixFixture(t, "v2").data)
	data[len(data)-1] ^= 1
	_, err := parseIndex(data)
	if !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("parseIndex = %v, want a corrupt-checksum error", err)
	}
}

func TestIndexTree(t *testing.T) {
	t.Parallel()
	h := strings.Repeat("\x11", 20)
	for _, tc := range []struct {
		name, tree string
		valid      bool
	}{
		{"root valid", "\x003 1\n" + h + "d\x001 0\n" + strings.Repeat("\x22", 20), true},
		{"root invalid", "\x00-1 1\nd\x001 0\n" + h, false},
		{"root named", "d\x003 0\n" + h, false},
		{"root without its hash", "\x003 0\n", false},
		{"empty", "", false},
	} {
		idx, err := parseIndex(newIxBuilder(2, 0).ext("TREE", tc.tree).file())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if idx.treeValid != tc.valid || (tc.valid && idx.treeHash != plumbing.Hash([]byte(h))) {
			t.Errorf("%s: treeValid %v treeHash %s, want %v", tc.name, idx.treeValid, idx.treeHash, tc.valid)
		}
	}
	// A later TREE extension replaces an earlier one, as in git and go-git.
	idx, err := parseIndex(newIxBuilder(2, 0).ext("TREE", "\x003 0\n"+h).ext("TREE", "\x00-1 0\n").file())
	if err != nil || idx.treeValid {
		t.Errorf("two TREE extensions, the last invalid: treeValid %v, %v", idx != nil && idx.treeValid, err)
	}
}

func TestReadIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "index")
	want := ixFixture(t, "v2").data
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err := readIndex(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.entries) == 0 || !idx.treeValid {
		t.Errorf("readIndex: %d entries, treeValid %v", len(idx.entries), idx.treeValid)
	}
	if _, err := readIndex(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing index: %v, want os.ErrNotExist", err)
	}
	if _, err := readIndex(dir); err == nil {
		t.Error("a directory read as an index")
	}
	if err := os.WriteFile(p, want[:len(want)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readIndex(p); !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), p) {
		t.Errorf("truncated index: %v, want a corrupt-index error naming %s", err, p)
	}
}

// TestIndexAllocationBounded measures the bytes parseIndex allocates for
// hostile files that describe far more than they hold. It is not parallel,
// so that no other test's allocations are counted.
func TestIndexAllocationBounded(t *testing.T) {
	const size = 1 << 20
	// quadraticV4 is a v4 index whose every entry after the first
	// repeats the previous name plus a byte: 64 bytes of file per copy of
	// a name of first bytes, until the names add up to names bytes.
	quadraticV4 := func(first, names int) []byte {
		w := newIxBuilder(4, 0)
		w.entry(1).raw("\x00" + strings.Repeat("n", first) + "\x00")
		count, total := 1, first
		for total < names {
			w.entry(1).raw("\x00x\x00")
			count++
			total += first + count
		}
		binary.BigEndian.PutUint32(w.b[8:], uint32(count))
		return w.file()
	}
	// A count of 2^32-1 over a file of empty entries.
	w := newIxBuilder(2, 0xffffffff)
	for len(w.b) < size {
		w.entry(0).v2name("", 62)
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		want  error
		limit int // bytes allocated per byte of file
	}{
		// 8 GiB of names described in 1 MiB.
		{"v4 names past the budget", quadraticV4(size/2, 8<<30), errUnsupported, 4},
		// Names six times the file's size: within the budget, built.
		{"v4 names within the budget", quadraticV4(size/16, 6*(size/16+64*6)), nil, 12},
		{"count", w.file(), errCorrupt, 4},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := parseIndex(tc.data)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(tc.limit*len(tc.data)); got > limit {
			t.Errorf("%s: %d bytes allocated for a %d-byte file, more than %d", tc.name, got, len(tc.data), limit)
		}
	}
}

// FuzzIndex decodes its input, given the checksum git would write, with
// parseIndex and with go-git's decoder: they must accept and reject the
// same files, and agree on every entry, but for the departures listed at
// the top of index.go (see ixDiff). parseIndex must never panic.
func FuzzIndex(f *testing.F) {
	for _, def := range ixFixtureDefs {
		data := ixFixture(f, def.name).data
		if len(data) < 1<<16 {
			f.Add(data[:len(data)-sha1.Size])
		}
	}
	f.Add(newIxBuilder(4, 2).entry(1).raw("\x00ab\x00").entry(1).raw("\x01c\x00").b)
	f.Add(newIxBuilder(3, 1).entry(flagExtended|1).u16(extIntentToAdd).v2name("a", 64).ext("TREE", "\x001 0\n"+strings.Repeat("\x11", 20)).b)
	f.Add(newIxBuilder(2, 1).entry(0xfff).raw("abc\x00\x00\x00\x00").ext("REUC", "f\x00100644\x000\x000\x00"+strings.Repeat("\x01", 20)).b)
	f.Add(newIxBuilder(2, 0).ext("EOIE", strings.Repeat("\x00", 24)).ext("UNTR", "x").b)
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := ixDiff(withTrailer(body)); err != nil {
			t.Fatal(err)
		}
	})
}

package treehash

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func put(t *testing.T, root, rel, data string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, root, rel, target string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// sample builds the same small plugin tree wherever it is called.
func sample(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	put(t, root, "plugin.toml", "[plugin]\nname = \"x\"\n", 0o644)
	put(t, root, "bin/run", "#!/bin/sh\necho hi\n", 0o755)
	put(t, root, "lib/a/b.txt", "deep", 0o600)
	put(t, root, "empty", "", 0o644)
	link(t, root, "bin/alias", "run")
	if err := os.MkdirAll(filepath.Join(root, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func mustHash(t *testing.T, root string) *Tree {
	t.Helper()
	tr, err := Hash(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func skipWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exec bits, symlinks and fifos are Unix here")
	}
}

func TestHashStable(t *testing.T) {
	skipWindows(t)
	a, b := sample(t), sample(t)
	ha, hb := mustHash(t, a), mustHash(t, b)
	if ha.Hash != hb.Hash {
		t.Errorf("same content, different hashes: %s vs %s", ha.Hash, hb.Hash)
	}
	if !strings.HasPrefix(ha.Hash, Prefix) || len(ha.Hash) != len(Prefix)+64 {
		t.Errorf("hash %q is not %s + 64 hex digits", ha.Hash, Prefix)
	}
	if again := mustHash(t, a); !reflect.DeepEqual(again, ha) {
		t.Error("hashing twice differs")
	}
	var paths []string
	for _, e := range ha.Entries {
		paths = append(paths, e.Path+":"+e.Kind)
	}
	want := []string{"bin/alias:symlink", "bin/run:exec", "empty:file", "lib/a/b.txt:file", "plugin.toml:file"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("entries = %q, want %q (sorted, slash paths, no directories)", paths, want)
	}
	if Sum(ha.Entries) != ha.Hash {
		t.Error("Sum(Entries) != Hash")
	}

	// Timestamps, non-exec permission bits and empty directories do not
	// count: only what a plugin's behaviour depends on.
	if err := os.Chmod(filepath.Join(b, "lib/a/b.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(b, "plugin.toml"), fixedTime, fixedTime); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(b, "emptydir"))
	if h := mustHash(t, b); h.Hash != ha.Hash {
		t.Error("mode 0600→0644, mtime or an empty dir changed the hash")
	}

	// Hashing through a symlinked root hashes what it points at.
	via := filepath.Join(t.TempDir(), "via")
	if err := os.Symlink(a, via); err != nil {
		t.Fatal(err)
	}
	if h := mustHash(t, via); h.Hash != ha.Hash {
		t.Error("symlinked root hashes differently")
	}
}

func TestHashChanges(t *testing.T) {
	skipWindows(t)
	base := mustHash(t, sample(t)).Hash
	cases := map[string]func(t *testing.T, root string){
		"content":      func(t *testing.T, r string) { put(t, r, "lib/a/b.txt", "deeq", 0o600) },
		"exec bit on":  func(t *testing.T, r string) { os.Chmod(filepath.Join(r, "plugin.toml"), 0o744) },
		"exec bit off": func(t *testing.T, r string) { os.Chmod(filepath.Join(r, "bin/run"), 0o644) },
		"link target": func(t *testing.T, r string) {
			os.Remove(filepath.Join(r, "bin/alias"))
			link(t, r, "bin/alias", "./run")
		},
		"file becomes link": func(t *testing.T, r string) {
			os.Remove(filepath.Join(r, "empty"))
			link(t, r, "empty", "plugin.toml")
		},
		"rename": func(t *testing.T, r string) {
			os.Rename(filepath.Join(r, "empty"), filepath.Join(r, "empty2"))
		},
		"move to dir": func(t *testing.T, r string) {
			os.MkdirAll(filepath.Join(r, "x"), 0o755)
			os.Rename(filepath.Join(r, "empty"), filepath.Join(r, "x", "empty"))
		},
		"added": func(t *testing.T, r string) { put(t, r, "new", "", 0o644) },
		"added dotfile": func(t *testing.T, r string) {
			put(t, r, ".env", "", 0o644)
		},
		"removed":     func(t *testing.T, r string) { os.Remove(filepath.Join(r, "empty")) },
		"nested .git": func(t *testing.T, r string) { put(t, r, "lib/.git/config", "x", 0o644) },
	}
	seen := map[string]string{base: "base"}
	for name, change := range cases {
		root := sample(t)
		change(t, root)
		h := mustHash(t, root).Hash
		if h == base {
			t.Errorf("%s: hash unchanged", name)
		}
		if other, dup := seen[h]; dup {
			t.Errorf("%s and %s hash alike", name, other)
		}
		seen[h] = name
	}
}

func TestHashSkips(t *testing.T) {
	skipWindows(t)
	a := sample(t)
	base := mustHash(t, a).Hash
	put(t, a, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
	put(t, a, ".git/objects/ab/cdef", "blob", 0o444)
	link(t, a, ".git/evil", "/etc/passwd") // not walked, so not refused
	if h := mustHash(t, a).Hash; h != base {
		t.Error("the root's .git changed the hash")
	}

	b := sample(t)
	put(t, b, "target/debug/big", "build output", 0o755)
	put(t, b, "targets", "kept", 0o644)
	tr, err := Hash(b, Options{Skip: func(rel string) bool { return rel == "target" }})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tr.Entries {
		if strings.HasPrefix(e.Path, "target/") {
			t.Errorf("skipped dir entry %s hashed", e.Path)
		}
	}
	if tr.Hash == base {
		t.Error("the file 'targets' beside the skipped dir was skipped too")
	}
}

func TestHashRefusesEscapingSymlinks(t *testing.T) {
	skipWindows(t)
	outside := t.TempDir()
	put(t, outside, "secret", "s", 0o600)
	cases := map[string]string{
		"absolute outside": filepath.Join(outside, "secret"),
		"relative climb":   "../../../../../../../../etc/passwd",
		"dangling outside": "../../nowhere-at-all",
		"absolute /":       "/",
		"parent of root":   "../..",
	}
	for name, target := range cases {
		t.Run(name, func(t *testing.T) {
			root := sample(t)
			link(t, root, "bin/bad", target)
			_, err := Hash(root, Options{})
			if !errors.Is(err, ErrUnsafeTree) {
				t.Fatalf("Hash = %v, want ErrUnsafeTree", err)
			}
			if !strings.Contains(err.Error(), "bin/bad") {
				t.Errorf("error %q does not name the link", err)
			}
		})
	}

	// A link to an inner dir that itself links out is refused too: the
	// target is resolved, not only cleaned.
	root := sample(t)
	link(t, root, "out", outside)
	link(t, root, "bin/hop", "../out/secret")
	if _, err := Hash(root, Options{}); !errors.Is(err, ErrUnsafeTree) {
		t.Errorf("two-hop escape: %v", err)
	}

	// Links that stay inside are fine, dangling or not, absolute or not.
	root = sample(t)
	link(t, root, "lib/up", "../plugin.toml")
	link(t, root, "lib/abs", filepath.Join(root, "bin", "run"))
	link(t, root, "lib/dangling", "not-yet-built")
	link(t, root, "lib/self", ".")
	if _, err := Hash(root, Options{}); err != nil {
		t.Errorf("inside links refused: %v", err)
	}
}

func TestHashMissingRoot(t *testing.T) {
	if _, err := Hash(filepath.Join(t.TempDir(), "nope"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing root: %v", err)
	}
}

func TestCompare(t *testing.T) {
	skipWindows(t)
	root := sample(t)
	was := mustHash(t, root).Entries
	if d := Compare(was, was); !d.Empty() || d.Modified == nil || d.Added == nil || d.Missing == nil {
		t.Errorf("self-compare = %+v, want empty non-nil lists", d)
	}

	put(t, root, "lib/a/b.txt", "changed", 0o600)
	os.Chmod(filepath.Join(root, "plugin.toml"), 0o755)
	os.Remove(filepath.Join(root, "bin/alias"))
	link(t, root, "bin/alias", "elsewhere")
	os.Remove(filepath.Join(root, "empty"))
	put(t, root, "zz-new", "", 0o644)
	put(t, root, "aa-new", "", 0o644)
	now := mustHash(t, root).Entries

	d := Compare(was, now)
	want := Diff{
		Modified: []string{"bin/alias", "lib/a/b.txt", "plugin.toml"},
		Added:    []string{"aa-new", "zz-new"},
		Missing:  []string{"empty"},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("Compare =\n%+v\nwant\n%+v", d, want)
	}
	if d.Empty() {
		t.Error("Empty() on a real diff")
	}
	rev := Compare(now, was)
	if !reflect.DeepEqual(rev.Added, want.Missing) || !reflect.DeepEqual(rev.Missing, want.Added) {
		t.Errorf("reverse Compare = %+v", rev)
	}
}

func TestFileDigest(t *testing.T) {
	if got := FileDigest([]byte("")); got != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("FileDigest(\"\") = %s", got)
	}
}

var fixedTime = mustParseTime("2001-02-03T04:05:06Z")

func mustParseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Link loops and self-links neither hang nor escape.
func TestHashLinkLoops(t *testing.T) {
	skipWindows(t)
	root := sample(t)
	link(t, root, "loop/a", "b")
	link(t, root, "loop/b", "a")
	link(t, root, "loop/self", "self")
	link(t, root, "loop/up", "..")
	tr, err := Hash(root, Options{})
	if err != nil {
		t.Fatalf("loops refused: %v", err)
	}
	n := 0
	for _, e := range tr.Entries {
		if strings.HasPrefix(e.Path, "loop/") {
			n++
			if e.Kind != KindSymlink {
				t.Errorf("%s hashed as %s", e.Path, e.Kind)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d loop links hashed, want 4", n)
	}
}

// Empty reports whether the trees matched.
func (d Diff) Empty() bool { return len(d.Modified)+len(d.Added)+len(d.Missing) == 0 }

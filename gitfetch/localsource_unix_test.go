//go:build unix

package gitfetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
)

// treeFixture is a repository whose head has what a checkout must get
// right: an executable, symlinks to a file and to a directory, nested
// directories, an empty file, and a file large enough to be streamed.
func treeFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.commit(t, "old", map[string]string{"VERSION": "0", "gone": "x"})
	for path, data := range map[string]string{
		"plugin.toml":     "[plugin]\nname = \"p\"\n",
		"bin/run":         "#!/bin/sh\necho hi\n",
		"lib/a/b/c/deep":  "deep\n",
		"lib/a/empty":     "",
		"assets/big.bin":  randomText(2*largeObject + 5),
		"docs/readme.txt": "read me\n",
	} {
		p := filepath.Join(f.dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(f.dir, "bin/run"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"run": "bin/run", "docs/lib": "../lib/a", "dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(f.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(f.dir, "gone")); err != nil {
		t.Fatal(err)
	}
	wt, err := f.repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	f.commit(t, "head", nil)
	return f
}

// snapshot describes every entry under dir: its type, permissions, size,
// modification time, and its content's hash or its link's target.
func snapshot(t *testing.T, dir string, skipGit bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if skipGit && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%s %v", fi.Mode().Type(), fi.Mode().Perm())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += fmt.Sprintf(" %d %s", len(data), hex.EncodeToString(sum[:]))
		}
		if !skipGit {
			desc += " " + fi.ModTime().Format(time.RFC3339Nano)
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A checkout from disk writes exactly the tree a clone writes (the same
// files, contents, modes and symlinks), and leaves the source exactly as
// it was: no index, ref, lock or object written, nothing touched.
func TestLocalCheckoutMatchesClone(t *testing.T) {
	t.Parallel()
	f := treeFixture(t)
	remote := gitProtocolServer(t, f.dir, pace{})
	cloned, want, err := checkoutRef(t, context.Background(), remote, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantTree := snapshot(t, cloned, true)
	for _, entry := range []string{"run", "docs/lib", "dangling", "bin/run", "lib/a/b/c/deep", "lib/a/empty", "assets/big.bin"} {
		if _, ok := wantTree[entry]; !ok {
			t.Fatalf("the clone lacks %s: the fixture proves nothing (%v)", entry, wantTree)
		}
	}
	if wantTree["bin/run"][:len("---------- -rwxr-xr-x")] != "---------- -rwxr-xr-x" || wantTree["run"][:2] != "L-" {
		t.Fatalf("the clone's modes are not what the fixture made: %q %q", wantTree["bin/run"], wantTree["run"])
	}

	before := snapshot(t, f.dir, false)
	for _, url := range []string{f.url, f.dir} { // file://, and a plain path
		dir, got, err := checkoutRef(t, context.Background(), url, "", Options{})
		if err != nil || got != want {
			t.Fatalf("%s: Checkout = %s, %v; want %s", url, got, err, want)
		}
		if tree := snapshot(t, dir, true); !reflect.DeepEqual(tree, wantTree) {
			t.Errorf("%s: checked out\n%v\nthe clone\n%v", url, tree, wantTree)
		}
	}
	// A bare commit and a history, which read more of the source.
	if _, _, err := checkoutRef(t, context.Background(), f.url, want[:9], Options{}); err != nil {
		t.Fatal(err)
	}
	rev := revisionOf(t, f.url, "main")
	if _, descends, err := CheckoutFrom(context.Background(), f.url, rev, filepath.Join(t.TempDir(), "h"), Options{}, f.commits["old"].String()); err != nil || !descends {
		t.Fatalf("CheckoutFrom = %v, %v", descends, err)
	}
	if after := snapshot(t, f.dir, false); !reflect.DeepEqual(after, before) {
		for k, v := range after {
			if before[k] != v {
				t.Errorf("source changed: %s: %q, was %q", k, v, before[k])
			}
		}
		for k := range before {
			if _, ok := after[k]; !ok {
				t.Errorf("source changed: %s removed", k)
			}
		}
	}
}

// A bare repository (HEAD and objects at its top) checks out the same.
func TestLocalCheckoutBareSource(t *testing.T) {
	t.Parallel()
	f := treeFixture(t)
	bare := filepath.Join(t.TempDir(), "p.git")
	if err := os.Rename(filepath.Join(f.dir, ".git"), bare); err != nil {
		t.Fatal(err)
	}
	dir, got, err := checkoutRef(t, context.Background(), "file://"+bare, "", Options{})
	if err != nil || got != f.commits["head"].String() {
		t.Fatalf("Checkout = %s, %v", got, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "lib/a/b/c/deep")); err != nil || string(data) != "deep\n" {
		t.Errorf("lib/a/b/c/deep = %q, %v", data, err)
	}
}

// A named pipe where the source should have an object, a ref or its
// shallow list is refused at once instead of waited on.
func TestLocalCheckoutRefusesFIFO(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, ref string }{
		{"object", ""},
		{"ref", ""},
		{"shallow", "bare commit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.commit(t, "c1", map[string]string{"VERSION": "1"})
			head := f.commit(t, "c2", map[string]string{"VERSION": "2", "plugin.toml": "x"})
			refs, err := ListRefs(context.Background(), f.url, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref := ""
			if tc.ref != "" {
				ref = head.String()[:10]
			}
			rev, err := Resolve(refs, ref)
			if err != nil {
				t.Fatal(err)
			}
			var p string
			switch tc.name {
			case "object":
				c, err := f.repo.CommitObject(head)
				if err != nil {
					t.Fatal(err)
				}
				tree, err := c.Tree()
				if err != nil {
					t.Fatal(err)
				}
				e, err := tree.FindEntry("plugin.toml")
				if err != nil {
					t.Fatal(err)
				}
				p = looseObject(f, e.Hash)
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			case "ref":
				p = filepath.Join(f.dir, ".git", "refs", "heads", "main")
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			case "shallow":
				p = filepath.Join(f.dir, ".git", "shallow")
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			errc := make(chan error, 1)
			go func() {
				_, err := Checkout(context.Background(), f.url, rev, filepath.Join(t.TempDir(), "tree"), Options{})
				errc <- err
			}()
			select {
			case err := <-errc:
				if err == nil {
					t.Errorf("a named pipe at %s read as part of the repository", p)
				} else {
					t.Log(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("Checkout blocked on the named pipe at %s", p)
			}
		})
	}
}

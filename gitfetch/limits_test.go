package gitfetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
)

// treeFiles lists what a checkout wrote besides .git.
func treeFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != ".git" {
			names = append(names, e.Name())
		}
	}
	return names
}

// A revision over the install limits is refused before any of its files is
// written, by size and by count; one exactly at them is checked out.
func TestCheckoutLimits(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	files := map[string]string{"plugin.toml": "[plugin]\nname = \"p\"\n"}
	for i := range 4 {
		files[filepath.Join("data", string(rune('a'+i)))] = randomText(10 << 10)
	}
	f.commit(t, "c", files)
	total := int64(len(files["plugin.toml"]) + 4*10<<10)
	rev := revisionOf(t, f.url, "")
	for _, c := range []struct {
		name string
		o    Options
		want string // in the error, or "" for success
	}{
		{"one byte too many", Options{MaxTreeBytes: total - 1}, "files come to more than"},
		{"one file too many", Options{MaxTreeFiles: 4}, "more than 4 files"},
		{"exactly at both", Options{MaxTreeBytes: total, MaxTreeFiles: 5}, ""},
	} {
		dir := filepath.Join(t.TempDir(), "tree")
		_, err := Checkout(context.Background(), f.url, rev, dir, c.o)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if len(treeFiles(t, dir)) != 2 {
				t.Errorf("%s: checked out %v", c.name, treeFiles(t, dir))
			}
			continue
		}
		var tl *TooLargeError
		if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a TooLargeError saying %q", c.name, err, c.want)
		}
		if names := treeFiles(t, dir); len(names) > 0 {
			t.Errorf("%s: files were written before the refusal: %v", c.name, names)
		}
	}
}

// What the server sends is bounded too: installing a commit by hash fetches
// its history, and a large file deleted long ago counts against the bound
// though the tree itself is small. A local source sends nothing: only its
// tree counts.
func TestCheckoutDownloadBound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.commit(t, "big", map[string]string{"plugin.toml": "[plugin]\nname = \"p\"\n", "old.bin": randomText(3 << 20)})
	wt, err := f.repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Remove("old.bin"); err != nil {
		t.Fatal(err)
	}
	small, err := wt.Commit("small", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	rev := Revision{Ref: small.String(), Kind: KindCommit, Commit: small.String()}
	o := Options{MaxTreeBytes: 64 << 10, MaxTreeFiles: 10}
	remote := gitProtocolServer(t, f.dir, pace{})
	dir := filepath.Join(t.TempDir(), "tree")
	_, err = Checkout(context.Background(), remote, rev, dir, o)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.What != "download" || !strings.Contains(err.Error(), "the server sent more than 1.1 MiB") || !strings.Contains(err.Error(), "install limit of 64 KiB") {
		t.Fatalf("Checkout: %v, want the download bound", err)
	}
	if names := treeFiles(t, dir); len(names) > 0 {
		t.Errorf("files were written: %v", names)
	}
	// With room for the history, the same commit installs.
	dir = filepath.Join(t.TempDir(), "tree")
	if _, err := Checkout(context.Background(), remote, rev, dir, Options{MaxTreeBytes: 8 << 20}); err != nil {
		t.Fatalf("Checkout with room: %v", err)
	}
	// From the repository on disk, within the first limits.
	dir = filepath.Join(t.TempDir(), "tree")
	if got, err := Checkout(context.Background(), f.url, rev, dir, o); err != nil || got != small.String() {
		t.Fatalf("Checkout from file:// = %s, %v; want %s", got, err, small)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{900: "900 bytes", 1024: "1 KiB", 1536: "1.5 KiB", 1 << 30: "1 GiB", 157515776: "150.2 MiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

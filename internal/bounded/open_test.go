package bounded

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// returns runs f and fails the test if it has not returned within a
// generous bound: an open that blocks on a FIFO or a terminal never
// returns, so the bound only decides how long a failure takes to show.
func returns[T any](t *testing.T, what string, f func() (T, error)) (T, error) {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	c := make(chan result, 1)
	go func() {
		v, err := f()
		c <- result{v, err}
	}()
	select {
	case r := <-c:
		return r.v, r.err
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked", what)
		panic("unreachable")
	}
}

// tree is a root directory with one of each kind of entry, and a secret
// outside it.
type tree struct{ root, outside string }

func newTree(t *testing.T) tree {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{root: filepath.Join(dir, "root"), outside: filepath.Join(dir, "secret.toml")}
	write := func(p, data string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(tr.outside, "token = \"secret\"\n")
	write(filepath.Join(tr.root, "plain"), "plain\n")
	write(filepath.Join(tr.root, "sub", "real"), "real\n")
	if err := os.Mkdir(filepath.Join(tr.root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(tr.root, "huge"))
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: 4 GiB that take no room, so only the bound keeps the read
	// small.
	if err := big.Truncate(4 << 30); err != nil {
		t.Fatal(err)
	}
	big.Close()
	if runtime.GOOS != "windows" {
		for link, target := range map[string]string{
			"inside":   "sub/real",
			"escape":   "../secret.toml",
			"absolute": tr.outside,
			"absin":    filepath.Join(tr.root, "plain"),
			"dangling": "nothing",
			"todir":    "dir",
			"tonull":   "/dev/null",
		} {
			if err := os.Symlink(target, filepath.Join(tr.root, link)); err != nil {
				t.Fatal(err)
			}
		}
		if err := mkfifo(filepath.Join(tr.root, "fifo")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("fifo", filepath.Join(tr.root, "tofifo")); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// want is what reading one entry gives: its content, or an error that
// wraps target and says msg.
type want struct {
	data   string
	target error
	msg    string
}

var (
	readOK       = func(s string) want { return want{data: s} }
	missing      = want{target: fs.ErrNotExist}
	aDirectory   = want{target: ErrNotRegular, msg: "is a directory, not a regular file"}
	aPipe        = want{target: ErrNotRegular, msg: "is a named pipe, not a regular file"}
	aDevice      = want{target: ErrNotRegular, msg: "is a device, not a regular file"}
	aSymlink     = want{target: ErrNotRegular, msg: "is a symlink, not a regular file"}
	tooLarge     = want{target: ErrTooLarge, msg: "is larger than 1024 bytes"}
	leadsOutside = want{target: ErrOutside, msg: "leads outside"}
	refusedLink  = want{msg: "inside"} // os.Root's refusal of an absolute link
)

func (w want) check(t *testing.T, name string, data []byte, err error) {
	t.Helper()
	if w.target == nil && w.msg == "" {
		if err != nil || string(data) != w.data {
			t.Errorf("%s: read %q, %v; want %q", name, data, err, w.data)
		}
		return
	}
	if err == nil {
		t.Errorf("%s: read %q, want an error", name, data)
		return
	}
	if w.target != nil && !errors.Is(err, w.target) {
		t.Errorf("%s: %v, want one wrapping %v", name, err, w.target)
	}
	if !strings.Contains(err.Error(), w.msg) {
		t.Errorf("%s: %q does not say %q", name, err, w.msg)
	}
}

// Each reader on each kind of entry: regular files are read, everything
// else is refused without blocking, and links are treated the way the
// reader promises.
func TestReaders(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	cases := []struct {
		name                       string
		follow, noLink, insideRoot want
		unix                       bool
	}{
		{"plain", readOK("plain\n"), readOK("plain\n"), readOK("plain\n"), false},
		{"none", missing, missing, missing, false},
		{"dir", aDirectory, aDirectory, aDirectory, false},
		{"huge", tooLarge, tooLarge, tooLarge, false},
		{"fifo", aPipe, aPipe, aPipe, true},
		{"tofifo", aPipe, aSymlink, aPipe, true},
		{"tonull", aDevice, aSymlink, leadsOutside, true},
		{"inside", readOK("real\n"), aSymlink, readOK("real\n"), true},
		{"escape", readOK("token = \"secret\"\n"), aSymlink, leadsOutside, true},
		{"absolute", readOK("token = \"secret\"\n"), aSymlink, leadsOutside, true},
		{"absin", readOK("plain\n"), aSymlink, refusedLink, true},
		{"dangling", missing, aSymlink, missing, true},
		{"todir", aDirectory, aSymlink, aDirectory, true},
	}
	for _, c := range cases {
		if c.unix && runtime.GOOS == "windows" {
			continue
		}
		path := filepath.Join(tr.root, c.name)
		data, err := returns(t, "ReadFile "+c.name, func() ([]byte, error) { return ReadFile(path, 1024) })
		c.follow.check(t, "ReadFile "+c.name, data, err)
		data, err = returns(t, "ReadFileNoLink "+c.name, func() ([]byte, error) { return ReadFileNoLink(path, 1024) })
		c.noLink.check(t, "ReadFileNoLink "+c.name, data, err)
		data, err = returns(t, "ReadInRoot "+c.name, func() ([]byte, error) { return ReadInRoot(tr.root, c.name, 1024) })
		c.insideRoot.check(t, "ReadInRoot "+c.name, data, err)
	}
}

// A path through the root's own parent is refused even when it names a
// regular file.
func TestReadInRootRefusesDotDot(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	if _, err := ReadInRoot(tr.root, "../secret.toml", 1024); err == nil {
		t.Error("read a file above the root")
	}
}

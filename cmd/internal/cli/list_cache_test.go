package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/lockfile/lockfiletest"
)

// listFixture is a FLEDGE_HOME with n recorded plugins, listed in process.
type listFixture struct {
	*searchFixture
	plugins, cache string
}

func newListFixture(t *testing.T, n int) *listFixture {
	t.Helper()
	f := &listFixture{searchFixture: newSearchFixture(t)}
	f.plugins = filepath.Join(f.home, "plugins.toml")
	f.cache = filepath.Join(f.home, "cache", "list.json")
	err := lockfile.NewStore(f.plugins, filepath.Join(f.home, "plugins.lock")).Update(func(lf *lockfile.File) error {
		for i := 0; i < n; i++ {
			lf.Put(lockfiletest.Entry(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *listFixture) list() string {
	f.t.Helper()
	code, out, errOut := f.fledge("plugins", "list", "--json")
	if code != 0 {
		f.t.Fatalf("list --json: exit %d: %s", code, errOut)
	}
	return out
}

// uncached is the document as rendered without a cache.
func (f *listFixture) uncached() string {
	f.t.Helper()
	if err := os.RemoveAll(filepath.Dir(f.cache)); err != nil {
		f.t.Fatal(err)
	}
	return f.list()
}

// rewrite replaces old with new (of the same length) in plugins.toml and
// gives the file back its modification time, so that only its contents
// tell the two versions apart.
func (f *listFixture) rewrite(old, new string) {
	f.t.Helper()
	if len(old) != len(new) {
		f.t.Fatalf("rewrite must keep the size: %q, %q", old, new)
	}
	fi, err := os.Stat(f.plugins)
	if err != nil {
		f.t.Fatal(err)
	}
	data, err := os.ReadFile(f.plugins)
	if err != nil {
		f.t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		f.t.Fatalf("plugins.toml has no %q", old)
	}
	data = bytes.Replace(data, []byte(old), []byte(new), 1)
	if err := os.WriteFile(f.plugins, data, 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chtimes(f.plugins, fi.ModTime(), fi.ModTime()); err != nil {
		f.t.Fatal(err)
	}
}

func TestListCacheHitIsIdentical(t *testing.T) {
	f := newListFixture(t, 20)
	first := f.list()
	if _, err := os.Stat(f.cache); err != nil {
		t.Fatalf("list --json stored no cache: %v", err)
	}
	// The cache holds exactly the document printed (TestListCacheIsUsed
	// shows the second run printed the cache).
	second := f.list()
	if first != second {
		t.Fatalf("cached document differs from the rendered one:\n%s\n---\n%s", first, second)
	}
	data, err := os.ReadFile(f.cache)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := bytes.Cut(data, []byte("\n"))
	if string(body) != first {
		t.Fatalf("cache body is not the document printed")
	}
}

// The cache is read: a cache file whose header matches is printed as is.
// (Here the body is altered by hand, with its length kept in the header,
// to show which path printed it; fledge never writes such a file.)
func TestListCacheIsUsed(t *testing.T) {
	f := newListFixture(t, 3)
	doc := f.list()
	data, err := os.ReadFile(f.cache)
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := bytes.Cut(data, []byte("\n"))
	marked := bytes.Replace(body, []byte(`"schema_version": 1`), []byte(`"schema_version": 7`), 1)
	if bytes.Equal(marked, body) {
		t.Fatal("document has no schema_version to mark")
	}
	if err := os.WriteFile(f.cache, append(append(head, '\n'), marked...), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := f.list(); got != string(marked) || got == doc {
		t.Fatalf("list --json did not print the cached document")
	}
}

// Any change to plugins.toml's contents is seen, even one that keeps its
// size and modification time.
func TestListCacheSeesContentChanges(t *testing.T) {
	f := newListFixture(t, 5)
	before := f.list()
	f.list() // from the cache
	f.rewrite("version = '1.2.3'", "version = '9.8.7'")
	after := f.list()
	if after == before || !strings.Contains(after, `"version": "9.8.7"`) {
		t.Fatalf("list --json did not see the new version:\n%s", after)
	}
	if after != f.uncached() {
		t.Fatal("document after the change differs from an uncached render")
	}
}

// config.toml's trust lists change tiers: a change there is seen too.
func TestListCacheSeesConfigChanges(t *testing.T) {
	f := newListFixture(t, 2)
	if doc := f.list(); !strings.Contains(doc, `"trust_tier": "unverified"`) {
		t.Fatalf("expected unverified plugins:\n%s", doc)
	}
	f.writeConfig("[trust]\norgs = [\"example\"]\n")
	doc := f.list()
	if strings.Contains(doc, `"trust_tier": "unverified"`) || !strings.Contains(doc, `"trust_tier": "team"`) {
		t.Fatalf("trusting the org did not change the tier:\n%s", doc)
	}
}

// A cache file that is cut short, foreign, empty, a directory or garbage is
// a miss: the document is rendered again, right, and the cache repaired.
func TestListCacheDamaged(t *testing.T) {
	f := newListFixture(t, 4)
	want := f.list()
	good, err := os.ReadFile(f.cache)
	if err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func() error{
		"truncated": func() error { return os.WriteFile(f.cache, good[:len(good)-10], 0o644) },
		"extended":  func() error { return os.WriteFile(f.cache, append(good, " "...), 0o644) },
		"empty":     func() error { return os.WriteFile(f.cache, nil, 0o644) },
		"garbage":   func() error { return os.WriteFile(f.cache, bytes.Repeat([]byte{0xff}, 300), 0o644) },
		"no header": func() error { return os.WriteFile(f.cache, []byte(want), 0o644) },
		"other key": func() error {
			other := bytes.Clone(good)
			i := bytes.IndexByte(other, ' ') + 1 // the key's first digit
			other[i] = "01"[other[i]%2]
			return os.WriteFile(f.cache, other, 0o644)
		},
		"directory": func() error {
			if err := os.Remove(f.cache); err != nil {
				return err
			}
			return os.Mkdir(f.cache, 0o755)
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := damage(); err != nil {
				t.Fatal(err)
			}
			if got := f.list(); got != want {
				t.Fatalf("damaged cache changed the output:\n%s", got)
			}
			if name == "directory" {
				if err := os.Remove(f.cache); err != nil {
					t.Fatal(err)
				}
				f.list()
			}
			if data, err := os.ReadFile(f.cache); err != nil || !bytes.Equal(data, good) {
				t.Fatalf("cache not repaired (%v)", err)
			}
		})
	}
}

// The cache never hides an error: a plugins.toml broken after a cached
// listing is reported as before.
func TestListCacheDoesNotHideCorruption(t *testing.T) {
	f := newListFixture(t, 2)
	f.list()
	f.rewrite("[[plugins]]", "[[plugins}]")
	code, out, errOut := f.fledge("plugins", "list", "--json")
	if code == 0 {
		t.Fatalf("corrupt plugins.toml listed: exit %d\n%s", code, out)
	}
	if !strings.Contains(out+errOut, "corrupt") {
		t.Fatalf("error does not say the file is corrupt:\n%s%s", out, errOut)
	}
}

// A home whose cache cannot be written (read-only, shared) lists as usual.
func TestListCacheUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		// root writes through permissions; make the cache path unusable
		// another way: a file where the cache directory should be.
		f := newListFixture(t, 2)
		if err := os.WriteFile(filepath.Join(f.home, "cache"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		a, b := f.list(), f.list()
		if a != b || !strings.Contains(a, "fledge-plugin-p0001") {
			t.Fatalf("listing without a cache failed:\n%s", a)
		}
		return
	}
	f := newListFixture(t, 2)
	if err := os.Chmod(f.home, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(f.home, 0o755) })
	a, b := f.list(), f.list()
	if a != b || !strings.Contains(a, "fledge-plugin-p0001") {
		t.Fatalf("listing without a cache failed:\n%s", a)
	}
}

// Listing, or running a command, in a home that does not exist yet leaves
// it not existing: caching is no reason to create FLEDGE_HOME.
func TestListAndLookupDoNotCreateHome(t *testing.T) {
	f := newSearchFixture(t)
	if code, out, errOut := f.fledge("plugins", "list", "--json"); code != 0 || !strings.Contains(out, `"plugins": []`) {
		t.Fatalf("list --json: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, _ := f.fledge("nosuchcommand"); code == 0 {
		t.Fatal("an unknown command succeeded")
	}
	if _, err := os.Stat(f.home); !os.IsNotExist(err) {
		t.Fatalf("FLEDGE_HOME was created: %v", err)
	}
}

// The fledge-<name> programs on PATH are listed as externals: one added,
// removed or moved is seen, whatever the cache holds.
func TestListCacheSeesExternalsOnPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fixture program is a shell script")
	}
	f := newListFixture(t, 2)
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	f.env["PATH"] = bin
	if doc := f.list(); !strings.Contains(doc, `"externals": []`) {
		t.Fatalf("no externals expected:\n%s", doc)
	}
	prog := filepath.Join(bin, "fledge-figma")
	testutil.WriteFile(t, prog, []byte("#!/bin/sh\n"), 0o755)
	doc := f.list()
	if !strings.Contains(doc, `"name": "figma"`) || !strings.Contains(doc, `"path": "`+prog+`"`) {
		t.Fatalf("the program on PATH is not listed:\n%s", doc)
	}
	if doc != f.uncached() {
		t.Fatal("document differs from an uncached render")
	}
	other := filepath.Join(t.TempDir(), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(prog, filepath.Join(other, "fledge-figma")); err != nil {
		t.Fatal(err)
	}
	f.env["PATH"] = bin + string(filepath.ListSeparator) + other
	if doc := f.list(); !strings.Contains(doc, `"path": "`+filepath.Join(other, "fledge-figma")+`"`) {
		t.Fatalf("the moved program is not seen:\n%s", doc)
	}
}

// The fledge binary is an input too: the same binary prints what it
// stored, and one rebuilt or upgraded in place (here: a new modification
// time) renders the document again rather than trust another's output.
func TestListCacheSeesANewBinary(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("buildFledge builds a Unix binary name")
	}
	f := newListFixture(t, 2)
	bin := filepath.Join(t.TempDir(), "fledge")
	data, err := os.ReadFile(buildFledge(t))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, bin, data, 0o755)
	list := func() string {
		t.Helper()
		cmd := exec.Command(bin, "plugins", "list", "--json")
		cmd.Env = []string{"FLEDGE_HOME=" + f.home, "HOME=" + t.TempDir(), "PATH=" + t.TempDir(), "NO_COLOR=1"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("list --json: %v", err)
		}
		return string(out)
	}
	doc := list()
	// Mark the stored document (its length kept), to see who printed it.
	stored, err := os.ReadFile(f.cache)
	if err != nil {
		t.Fatal(err)
	}
	marked := bytes.Replace(stored, []byte(`"schema_version": 1`), []byte(`"schema_version": 7`), 1)
	if err := os.WriteFile(f.cache, marked, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := list(); !strings.Contains(got, `"schema_version": 7`) {
		t.Fatal("the binary that stored the document did not print it: the test proves nothing")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	if got := list(); got != doc {
		t.Fatalf("a rebuilt fledge printed another binary's document:\n%s", got)
	}
}

// The admin policy narrows the owners config.toml trusts, so list's tiers
// follow it, as audit's and info's do; a change to a policy file is seen
// through the cache, and a policy that cannot be read is said, with
// nothing cached.
func TestListFollowsThePolicy(t *testing.T) {
	f := newListFixture(t, 2)
	f.writeConfig("[trust]\norgs = [\"example\"]\n")
	if doc := f.list(); !strings.Contains(doc, `"trust_tier": "team"`) {
		t.Fatalf("expected team plugins:\n%s", doc)
	}
	pol := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(pol, []byte("[trust]\nowners = [\"someone-else\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.env["FLEDGE_POLICY"] = pol
	doc := f.list()
	if strings.Contains(doc, `"trust_tier": "team"`) || !strings.Contains(doc, `"trust_tier": "unverified"`) {
		t.Fatalf("the policy's owners rule did not narrow the tiers:\n%s", doc)
	}
	if doc != f.list() || doc != f.uncached() {
		t.Fatal("the narrowed document differs between the cache and a render")
	}
	// The same path, new contents.
	if err := os.WriteFile(pol, []byte("[trust]\nowners = [\"example\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if doc := f.list(); !strings.Contains(doc, `"trust_tier": "team"`) {
		t.Fatalf("a change to the policy file was not seen:\n%s", doc)
	}
	if err := os.WriteFile(pol, []byte("[trust]\nownerz = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Dir(f.cache)); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := f.fledge("plugins", "list", "--json")
	if code != 0 || !strings.Contains(errOut, "warning: ") || !strings.Contains(errOut, "policy.toml") {
		t.Fatalf("unreadable policy: exit %d, stderr %q; want a warning naming the file", code, errOut)
	}
	if _, err := os.Stat(f.cache); !os.IsNotExist(err) {
		t.Errorf("a document was cached under a policy that cannot be read (%v)", err)
	}
}

// Each plugin's confinement depends on the kernel and on FLEDGE_CONFINE:
// turning it off is not answered from a document cached with it on.
func TestListCacheKeyedOnConfinement(t *testing.T) {
	f := newListFixture(t, 2)
	on := f.list()
	if !strings.Contains(on, `"confinement"`) {
		t.Fatalf("list --json has no confinement:\n%s", on)
	}
	f.env["FLEDGE_CONFINE"] = "off"
	off := f.list()
	if off == on || !strings.Contains(off, "turned off by FLEDGE_CONFINE=off") {
		t.Errorf("with FLEDGE_CONFINE=off list --json says:\n%s", off)
	}
	if u := f.uncached(); u != off {
		t.Errorf("cached document differs from a fresh one:\n%s\nfresh:\n%s", off, u)
	}
}

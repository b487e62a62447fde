package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/derived/derivedtest"
)

// At 1,000 plugins list --json prints the same bytes rendered, from its
// document found through plugins.toml's remembered digest, and from a fledge
// process writing to a pipe or a file (which the kernel fills from the
// document: derived's sendFile). (Not parallel: it moves the clock stamps
// are judged by.)
func TestListThousandPluginsSameBytesEveryWay(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("buildFledge builds a Unix binary name")
	}
	f := newListFixture(t, 1000)
	rendered := f.uncached()
	if n := strings.Count(rendered, `"name": "fledge-plugin-p`); n != 1000 {
		t.Fatalf("the document lists %d plugins, want 1000", n)
	}
	derivedtest.Settle(t)
	for i, what := range []string{"rendered, digest remembered", "from the document, digest remembered", "from the document and the digest"} {
		if got := f.list(); got != rendered {
			t.Fatalf("%s: the document differs from the one rendered", what)
		}
		if _, err := os.Stat(filepath.Join(f.home, "cache", "plugins.toml.sum")); i == 0 && err != nil {
			t.Fatalf("plugins.toml's digest was not remembered: %v", err)
		}
	}
	bin := buildFledge(t)
	env := []string{"FLEDGE_HOME=" + f.home, "HOME=" + t.TempDir(), "PATH=" + t.TempDir(), "NO_COLOR=1"}
	for i := range 2 { // the process renders its own document, then prints it
		cmd := exec.Command(bin, "plugins", "list", "--json")
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("list --json: %v", err)
		}
		if string(out) != rendered {
			t.Fatalf("run %d through a pipe: %d bytes differ from the %d rendered", i, len(out), len(rendered))
		}
	}
	path := filepath.Join(t.TempDir(), "list.json")
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "plugins", "list", "--json")
	cmd.Env, cmd.Stdout = env, file
	if err := cmd.Run(); err != nil {
		t.Fatalf("list --json > file: %v", err)
	}
	file.Close()
	if out, err := os.ReadFile(path); err != nil || !bytes.Equal(out, []byte(rendered)) {
		t.Fatalf("into a file: %d bytes (%v) differ from the %d rendered", len(out), err, len(rendered))
	}
}

// With plugins.toml settled, its digest is remembered under its stamp: a
// change that keeps its size and modification time is still seen, and so is
// a file renamed into place. (Not parallel: it moves the clock.)
func TestListSeesChangesThroughTheRememberedDigest(t *testing.T) {
	f := newListFixture(t, 5)
	derivedtest.Settle(t)
	before := f.list()
	if f.list() != before {
		t.Fatal("the remembered digest found another document")
	}
	derivedtest.NextTick(t)
	f.rewrite("version = '1.2.3'", "version = '9.8.7'")
	after := f.list()
	if after == before || !strings.Contains(after, `"version": "9.8.7"`) {
		t.Fatalf("list --json did not see the new version:\n%s", after)
	}
	if f.list() != after {
		t.Fatal("the changed document was not kept")
	}
	derivedtest.NextTick(t)
	data, err := os.ReadFile(f.plugins)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f.plugins)
	if err != nil {
		t.Fatal(err)
	}
	next := f.plugins + ".new"
	if err := os.WriteFile(next, bytes.Replace(data, []byte("version = '9.8.7'"), []byte("version = '4.5.6'"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(next, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, f.plugins); err != nil {
		t.Fatal(err)
	}
	if doc := f.list(); !strings.Contains(doc, `"version": "4.5.6"`) {
		t.Fatalf("list --json did not see the file renamed into place:\n%s", doc)
	}
	if f.list() != f.uncached() {
		t.Fatal("the document differs from an uncached render")
	}
}

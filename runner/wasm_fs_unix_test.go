//go:build unix

package runner

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/manifest"
)

// runBounded runs the driver, failing the test (instead of hanging it)
// when the run does not end.
func (e *testEnv) runBounded(steps ...string) *Result {
	e.t.Helper()
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := e.drive(nil, steps...)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			e.t.Fatalf("run: %v\n%s", o.err, e.stderr)
		}
		return o.res
	case <-time.After(90 * time.Second):
		e.t.Fatalf("the run did not end in 90 s: the plugin is stuck in a host call")
		return nil
	}
}

// A FIFO in the project (or in the plugin's data) is never opened: a
// plugin listing and reading every entry ends, and sees the FIFO refused.
func TestWasmFIFOInMountsIsNotOpened(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{Filesystem: "plugin"})
	writeFile(t, filepath.Join(e.project, "a.txt"), "project data", 0o644)
	if err := syscall.Mkfifo(filepath.Join(e.project, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe", filepath.Join(e.project, "to-pipe")); err != nil {
		t.Fatal(err)
	}
	data := e.paths.PluginFilesDir("fledge-plugin-wasm")
	mustMkdir(t, data)
	if err := syscall.Mkfifo(filepath.Join(data, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := e.runBounded("list:/project", "read:/project/pipe", "read:/project/to-pipe", "read:/plugin/pipe")
	list := reported(t, res.Output, "list")
	if !strings.Contains(list, "a.txt=project data") {
		t.Errorf("the regular file was not read: %s", list)
	}
	// Listed or not, a FIFO is never opened.
	for _, name := range []string{"|pipe=", "|to-pipe="} {
		if _, rest, ok := strings.Cut("|"+list, name); ok && !strings.HasPrefix(rest, "error:") {
			t.Errorf("%s in /project was opened: %s", name[1:len(name)-1], list)
		}
	}
	reads := 0
	for _, l := range strings.Split(res.Output, "\n") {
		if rest, ok := strings.CutPrefix(l, "read "); ok {
			reads++
			if _, got, _ := strings.Cut(rest, " "); !strings.HasPrefix(got, "error:") {
				t.Errorf("a FIFO was read: %q", l)
			}
		}
	}
	if reads != 3 {
		t.Errorf("%d of 3 reads reported:\n%s", reads, res.Output)
	}
}

// A symlink planted in the plugin's data directory is not followed, for
// reading or writing, as /project already refuses one.
func TestWasmPluginDirRefusesPlantedLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{Filesystem: "plugin"})
	secret := filepath.Join(e.dir, "secret.txt")
	writeFile(t, secret, "outside", 0o644)
	outdir := filepath.Join(e.dir, "outdir")
	mustMkdir(t, outdir)
	data := e.paths.PluginFilesDir("fledge-plugin-wasm")
	mustMkdir(t, data)
	for link, target := range map[string]string{"link": secret, "dirlink": outdir} {
		if err := os.Symlink(target, filepath.Join(data, link)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(data, "own.txt"), "own data", 0o600)
	res := e.runBounded("read:/plugin/link", "write:/plugin/link=overwritten", "write:/plugin/dirlink/new.txt=x",
		"list:/plugin")
	if strings.Contains(res.Output, "outside") {
		t.Errorf("the plugin read through a planted link:\n%s", res.Output)
	}
	if b, _ := os.ReadFile(secret); string(b) != "outside" {
		t.Errorf("the plugin wrote through a planted link: the file holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(outdir, "new.txt")); err == nil {
		t.Errorf("the plugin created a file through a planted directory link")
	}
	if list := reported(t, res.Output, "list"); !strings.Contains(list, "own.txt=own data") {
		t.Errorf("the plugin's own file is not readable: %s", list)
	}
}

// What a wasm plugin wrote to /plugin under the Rust fledge (data/ inside
// its tree) reads the same here: the first run takes it over, as the
// store's state.json is, leaving the original and any symlink behind.
func TestWasmTakesOverRustPluginFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installWasm(manifest.Capabilities{Filesystem: "plugin"})
	rust := e.paths.RustPluginFilesDir("fledge-plugin-wasm")
	mustMkdir(t, filepath.Join(rust, "sub"))
	writeFile(t, filepath.Join(rust, "old.txt"), "written under rust", 0o644)
	writeFile(t, filepath.Join(rust, "sub", "deep.txt"), "deeper", 0o644)
	secret := filepath.Join(e.dir, "secret.txt")
	writeFile(t, secret, "outside", 0o644)
	if err := os.Symlink(secret, filepath.Join(rust, "link")); err != nil {
		t.Fatal(err)
	}
	res := e.runBounded("read:/plugin/old.txt", "read:/plugin/sub/deep.txt", "read:/plugin/link", "write:/plugin/new.txt=x")
	if !strings.Contains(res.Output, "read 18 written under rust") || !strings.Contains(res.Output, "read 6 deeper") {
		t.Errorf("Rust's files were not carried over:\n%s", res.Output)
	}
	if strings.Contains(res.Output, "outside") {
		t.Errorf("a symlink in Rust's data was followed:\n%s", res.Output)
	}
	if b, err := os.ReadFile(filepath.Join(rust, "old.txt")); err != nil || string(b) != "written under rust" {
		t.Errorf("the original changed: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(rust, "new.txt")); err == nil {
		t.Errorf("a new write went to Rust's directory, not fledge's")
	}
	// Taken over once: a file removed from Rust's copy later stays here.
	os.Remove(filepath.Join(rust, "old.txt"))
	res = e.runBounded("read:/plugin/old.txt")
	if !strings.Contains(res.Output, "written under rust") {
		t.Errorf("the second run took over again:\n%s", res.Output)
	}
}

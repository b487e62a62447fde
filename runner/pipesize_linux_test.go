package runner

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/manifest"
	"golang.org/x/sys/unix"
)

// pipeSize is the capacity of the pipe behind f.
func pipeSize(t *testing.T, f *os.File) int {
	t.Helper()
	n, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// canGrow reports whether a new pipe grows to streamPipe now: past the
// user's limits (pipe-user-pages-soft, for one) it does not.
func canGrow(t *testing.T) bool {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	growPipe(w)
	return pipeSize(t, w) == streamPipe
}

// TestStdoutPipeGrows: when fledge's stdout is a pipe, a protocol run makes
// it as large as the pipe the plugin writes to (streamPipe), so fledge can
// run ahead of the program reading its output; the output is unchanged.
func TestStdoutPipeGrows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.installGo("fledge-plugin-go", "go", manifest.Capabilities{})
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if before := pipeSize(t, pw); before >= streamPipe {
		t.Fatalf("a new pipe holds %d bytes already: nothing to test", before)
	}
	read := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(pr)
		read <- string(b)
	}()
	r := e.runner()
	r.Stdout = pw
	res, err := e.runWith(r, Request{Command: "go", Args: []string{"exit", "0"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("err %v exit %d\nstderr:\n%s", err, res.ExitCode, e.stderr)
	}
	got := pipeSize(t, pw)
	pw.Close()
	select {
	case out := <-read:
		if out != "exiting\n" {
			t.Errorf("stdout %q, want %q", out, "exiting\n")
		}
	case <-time.After(testutil.WaitLimit):
		t.Fatal("the pipe fledge wrote to was not closed by the end of the run")
	}
	// A pipe that stayed small is a failure unless the user's limits
	// keep new pipes small too.
	if got != streamPipe && canGrow(t) {
		t.Errorf("stdout pipe holds %d bytes after the run, want %d (streamPipe)", got, streamPipe)
	}
}

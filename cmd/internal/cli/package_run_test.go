package cli_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// packageRun runs this package's tests for testscript.Main. Most of them
// drive fledge, plugins, git fixtures and terminals as real processes and
// spend their time waiting on them, not computing, so by default they run
// four to a CPU instead of go test's one (an explicit -parallel still
// wins). Afterwards it removes what the tests shared.
type packageRun struct{ m *testing.M }

func (p packageRun) Run() int {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		if err := flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0))); err != nil {
			fmt.Fprintln(os.Stderr, "setting -test.parallel:", err)
			return 2
		}
	}
	defer builtFledge.remove()
	return p.m.Run()
}

// builtFledge is ./cmd/fledge built once for the package's tests that run
// the real command rather than the test binary.
var builtFledge sharedBuild

type sharedBuild struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func (b *sharedBuild) get(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		if b.dir, b.err = os.MkdirTemp("", "fledge-built"); b.err != nil {
			return
		}
		b.bin = filepath.Join(b.dir, "fledge")
		if out, err := exec.Command(goTool, "build", "-o", b.bin, "github.com/corvidlabs/fledge-go/cmd/fledge").CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

func (b *sharedBuild) remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

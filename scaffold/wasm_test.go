package scaffold

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/internal/testutil"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/runner/wasmengine"
)

// TestWasmExampleInstallsAndRuns creates the wasm example, installs it as
// it is (its approved build hook compiles it with GOOS=wasip1) and runs it
// in the sandbox.
func TestWasmExampleInstallsAndRuns(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fledge-plugin-greet")
	if _, err := Create(Options{Name: "greet", Dir: dir, Lang: LangWasm}); err != nil {
		t.Fatal(err)
	}
	paths, err := home.New(filepath.Join(t.TempDir(), "fledge"))
	if err != nil {
		t.Fatal(err)
	}
	store := lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock())
	in := &install.Installer{Paths: paths, Store: store, Consent: install.Consent{Yes: true}, Log: os.Stderr, Env: os.Environ()}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := in.Install(ctx, dir)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	if res.Entry.Runtime != "wasm" {
		t.Errorf("runtime %q", res.Entry.Runtime)
	}
	out := &testutil.SyncBuffer{}
	r := &runner.Runner{Paths: paths, Stdout: out, Stderr: os.Stderr, Getwd: func() (string, error) { return t.TempDir(), nil }, Wasm: wasmengine.Engine{}}
	run, err := r.Run(ctx, runner.Request{Command: "greet", Args: []string{"Ada"}})
	if err != nil || run.ExitCode != 0 {
		t.Fatalf("run: %v (exit %d)", err, run.ExitCode)
	}
	if got := out.String(); got != "Hello, Ada!\n" {
		t.Errorf("output %q", got)
	}
}

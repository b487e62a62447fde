package wasmhost

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"
)

func gcPercent() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }

// TestHoldGC: a run holds the collector off, bounded by a memory limit
// runHeadroom above what Go held, and not under a tighter limit already set; two
// overlapping runs restore GOGC and the limit only when the last ends.
func TestHoldGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	used, ok := goMemory()
	if !ok || used <= 0 {
		t.Fatalf("goMemory = %d, %v: the runtime's metrics are missing", used, ok)
	}
	first := holdGC()
	if p := gcPercent(); p != -1 {
		t.Errorf("during a run GOGC = %d, want off (-1)", p)
	}
	limit := debug.SetMemoryLimit(-1)
	if limit < used+runHeadroom || limit > used+2*runHeadroom {
		t.Errorf("during a run the memory limit is %d, want about %d (%d in use + runHeadroom)", limit, used+runHeadroom, used)
	}
	second := holdGC()
	first()
	first() // a second call is a no-op
	if p := gcPercent(); p != -1 {
		t.Errorf("with one run left GOGC = %d, want off (-1)", p)
	}
	second()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 150 || l != math.MaxInt64 {
		t.Errorf("after the runs GOGC = %d and the limit %d, want 150 and %d restored", p, l, int64(math.MaxInt64))
	}

	// Under a tighter GOMEMLIMIT nothing changes: the collector would
	// run all the time.
	debug.SetMemoryLimit(used / 2)
	release := holdGC()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 150 || l != used/2 {
		t.Errorf("during a run under a limit of %d GOGC = %d and the limit %d, want both kept", used/2, p, l)
	}
	release()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 150 || l != used/2 {
		t.Errorf("after the run GOGC = %d and the limit %d, want 150 and %d", p, l, used/2)
	}

	// A run ends its hold when it ends, and so does a start that fails.
	debug.SetMemoryLimit(math.MaxInt64)
	_, inst := run(t, exitModule(3), Limits{})
	if code, _, f := inst.Result(); code != 3 || f != nil {
		t.Fatalf("the module ended with %d, %v; want exit 3", code, f)
	}
	if _, err := Start(Config{Module: []byte("\x00asm junk")}); err == nil {
		t.Fatal("a module that does not decode started")
	}
	if _, err := StartFile(filepath.Join(t.TempDir(), "missing.wasm"), Config{}); err == nil {
		t.Fatal("a module that is not there started")
	}
	if gcHold.runs != 0 {
		t.Fatalf("after StartFile of a missing module %d runs are held, want 0", gcHold.runs)
	}
	path := filepath.Join(t.TempDir(), "exit.wasm")
	if err := os.WriteFile(path, exitModule(4), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := StartFile(path, Config{Args: []string{"cmd"}})
	if err != nil {
		t.Fatal(err)
	}
	if gcHold.runs != 1 {
		t.Errorf("a run StartFile started holds %d runs, want 1 (its own)", gcHold.runs)
	}
	_ = fromFile.Stdin().Close()
	go func() { _, _ = io.Copy(io.Discard, fromFile.Stdout()) }()
	select {
	case <-fromFile.Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("the module from a file did not end in 20 s")
	}
	if code, _, f := fromFile.Result(); code != 4 || f != nil {
		t.Fatalf("the module from a file ended with %d, %v; want exit 4", code, f)
	}
	if p, l, runs := gcPercent(), debug.SetMemoryLimit(-1), gcHold.runs; p != 150 || l != math.MaxInt64 || runs != 0 {
		t.Errorf("after a run and a failed start GOGC = %d, the limit %d and %d runs held, want 150, %d and 0", p, l, runs, int64(math.MaxInt64))
	}
}

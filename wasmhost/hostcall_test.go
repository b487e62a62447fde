package wasmhost

import (
	"sync"
	"testing"
	"time"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
)

// stuckWriter blocks every write until release is closed (fledge's
// stderr when it is a full pipe nobody reads), closing entered at the
// first.
type stuckWriter struct {
	entered, release chan struct{}
	once             *sync.Once
}

func (w stuckWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.release
	return len(p), nil
}

// A plugin stuck in a host call that cannot be interrupted is still
// stopped: once killed, it is abandoned after killGrace, and reports as
// killed.
func TestKillWhileStuckInAHostCall(t *testing.T) {
	t.Parallel()
	i32 := tu.I32
	fdWrite := tu.WasmImport{Module: "wasi_snapshot_preview1", Name: "fd_write", Params: []byte{i32, i32, i32, i32}, Results: []byte{i32}}
	// An iovec at 0 for the two bytes "x\n" at 16; fd_write(2, 0, 1, 32).
	mod := tu.WasmModule{Imports: []tu.WasmImport{fdWrite}, MemPages: 1,
		Data:  "\x10\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00x\n",
		Start: seq(tu.I32Const(2), tu.I32Const(0), tu.I32Const(1), tu.I32Const(32), call(0), []byte{tu.OpDrop})}
	w := stuckWriter{entered: make(chan struct{}), release: make(chan struct{}), once: &sync.Once{}}
	defer close(w.release)
	inst, err := Start(Config{Module: mod.Bytes(), Args: []string{"cmd"}, Stderr: w})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.entered:
	case <-inst.Exited():
		t.Fatal("the plugin ended before writing to stderr")
	case <-time.After(30 * time.Second):
		t.Fatal("the plugin never wrote to stderr")
	}
	inst.Stop(true)
	select {
	case <-inst.Exited():
	case <-time.After(killGrace + 30*time.Second):
		t.Fatal("a killed plugin stuck in a host call never ended")
	}
	if code, signaled, f := inst.Result(); code != 128+9 || !signaled || f != nil {
		t.Errorf("Result = %d, %v, %v; want killed", code, signaled, f)
	}
}

package wasmhost

import (
	"bufio"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
)

// run starts module, sends init, and returns the lines it wrote and how it
// ended. Nothing answers its requests: fledge's engine is not here.
func run(t *testing.T, module []byte, lim Limits) ([]string, *Instance) {
	t.Helper()
	inst, err := Start(Config{Module: module, Args: []string{"cmd"}, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	// A module that never reads (one that traps at once) may be gone, its
	// end of stdin closed, before init is written: only then is a broken
	// pipe no failure, which is checked once it has ended.
	_, writeErr := inst.Stdin().Write([]byte(`{"type":"init","args":[]}` + "\n"))
	if writeErr != nil && !errors.Is(writeErr, syscall.EPIPE) {
		t.Fatal(writeErr)
	}
	var lines []string
	sc := bufio.NewScanner(inst.Stdout())
	sc.Buffer(nil, 4<<20)
	done := make(chan struct{})
	go func() {
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		close(done)
	}()
	select {
	case <-inst.Exited():
	case <-time.After(20 * time.Second):
		inst.Stop(true)
		t.Fatal("the instance did not end")
	}
	tu.Receive(t, "the output reader to finish", done)
	inst.Stdin().Close()
	if writeErr != nil {
		if code, _, f := inst.Result(); code == 0 && f == nil {
			t.Fatalf("writing init: %v, yet the module ended well", writeErr)
		}
	}
	return lines, inst
}

func seq(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func call(i int) []byte { return []byte{tu.OpCall, byte(i)} }

func TestHostileModules(t *testing.T) {
	t.Parallel()
	imports := []tu.WasmImport{fSend, fRecv, fExit, fExec} // 0, 1, 2, 3
	for _, tc := range []struct {
		name  string
		start []byte
		lim   Limits
		kind  FailureKind
		words string
	}{
		{"infinite loop", []byte{tu.OpLoop, 0x40, tu.OpBr, 0, tu.OpEnd}, Limits{Compute: 200 * time.Millisecond}, FailCompute, "compute budget of 200ms"},
		{"memory growth", seq(
			[]byte{0x02, 0x40, tu.OpLoop, 0x40}, tu.I32Const(16), []byte{tu.OpMemoryGrow, 0x00}, tu.I32Const(-1),
			[]byte{0x47, tu.OpBrIf, 0, tu.OpEnd, tu.OpEnd, tu.OpUnreachable}),
			Limits{Memory: 8 << 20}, FailMemory, "limit of 8 MiB"},
		{"huge send", seq(tu.I32Const(0), tu.I32Const(2<<20), call(0)), Limits{}, FailProtocol, "2097152 bytes"},
		{"huge exec request", seq(tu.I32Const(0), tu.I32Const(2<<20), call(3), []byte{tu.OpDrop}), Limits{}, FailProtocol, "fledge.exec 2097152 bytes"},
		{"send past memory", seq(tu.I32Const(60000), tu.I32Const(10000), call(0)), Limits{}, FailTrap, "outside its memory"},
		{"recv past memory", seq(tu.I32Const(65530), tu.I32Const(100), call(1), []byte{tu.OpDrop}), Limits{}, FailTrap, "outside its memory"},
		{"recv negative length", seq(tu.I32Const(0), tu.I32Const(-5), call(1), []byte{tu.OpDrop}), Limits{}, FailTrap, "negative"},
		{"trap", []byte{tu.OpUnreachable}, Limits{}, FailTrap, "unreachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, inst := run(t, tu.WasmModule{Imports: imports, MemPages: 1, Start: tc.start}.Bytes(), tc.lim)
			code, _, f := inst.Result()
			if f == nil || f.Kind != tc.kind || !strings.Contains(f.Msg, tc.words) || code == 0 {
				t.Fatalf("result %d %+v, want kind %d saying %q", code, f, tc.kind, tc.words)
			}
		})
	}
}

func TestRecvDeliversInitInPieces(t *testing.T) {
	t.Parallel()
	// recv 5 bytes at 0, then the rest at 5, then send the 25 bytes as one
	// message: init arrived whole, in two pieces.
	start := seq(
		tu.I32Const(0), tu.I32Const(5), call(1), []byte{tu.OpDrop},
		tu.I32Const(5), tu.I32Const(1000), call(1), []byte{tu.OpDrop},
		tu.I32Const(0), tu.I32Const(25), call(0),
	)
	lines, inst := run(t, tu.WasmModule{Imports: []tu.WasmImport{fSend, fRecv}, MemPages: 1, Start: start}.Bytes(), Limits{})
	if code, _, f := inst.Result(); code != 0 || f != nil {
		t.Fatalf("result %d %v", code, f)
	}
	if len(lines) != 1 || lines[0] != `{"type":"init","args":[]}` {
		t.Fatalf("lines = %q", lines)
	}
}

func TestStopWhileWaiting(t *testing.T) {
	t.Parallel()
	// A request the plugin waits for, never answered.
	msg := `{"type":"prompt","id":"1","message":"q"}`
	mod := tu.WasmModule{Imports: []tu.WasmImport{fSend, fRecv}, MemPages: 1, Data: msg, DataAt: 1024, Start: seq(
		tu.I32Const(0), tu.I32Const(100), call(1), []byte{tu.OpDrop}, // init
		tu.I32Const(1024), tu.I32Const(int32(len(msg))), call(0),
		tu.I32Const(0), tu.I32Const(100), call(1), []byte{tu.OpDrop}, // waits
	)}.Bytes()
	inst, err := Start(Config{Module: mod, Limits: Limits{Compute: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	inst.Stdin().Write([]byte("{\"type\":\"init\"}\n"))
	sc := bufio.NewScanner(inst.Stdout())
	if !sc.Scan() || sc.Text() != msg {
		t.Fatalf("first line %q", sc.Text())
	}
	// Waiting is not computing: well past the budget, it still waits.
	select {
	case <-inst.Exited():
		_, _, f := inst.Result()
		t.Fatalf("ended while waiting: %v", f)
	case <-time.After(400 * time.Millisecond):
	}
	inst.Stop(false)
	tu.Receive(t, "the stopped instance to exit", inst.Exited())
	if code, signaled, f := inst.Result(); code != 143 || !signaled || f != nil {
		t.Fatalf("result %d %v %v, want 143 signaled", code, signaled, f)
	}
}

// TestRecvAfterHangUp: once fledge closed the stream, recv returns -1, not
// the 0 of "nothing waiting", so a plugin waiting for messages can stop.
func TestRecvAfterHangUp(t *testing.T) {
	t.Parallel()
	msg := `{"type":"prompt","id":"1","message":"q"}`
	exitWithRecv := seq(tu.I32Const(0), tu.I32Const(100), call(1), tu.I32Const(2), []byte{0x6a}, call(2)) // exit(recv()+2)
	for _, tc := range []struct {
		name   string
		start  []byte
		hangUp bool
		want   int // 1: recv said -1; 2: recv said 0
	}{
		{"nothing owed", seq(tu.I32Const(0), tu.I32Const(100), call(1), []byte{tu.OpDrop}, exitWithRecv), false, 2},
		{"hung up while owed", seq(tu.I32Const(0), tu.I32Const(100), call(1), []byte{tu.OpDrop},
			tu.I32Const(1024), tu.I32Const(int32(len(msg))), call(0), exitWithRecv), true, 1},
	} {
		mod := tu.WasmModule{Imports: []tu.WasmImport{fSend, fRecv, fExit}, MemPages: 1, Data: msg, DataAt: 1024, Start: tc.start}.Bytes()
		inst, err := Start(Config{Module: mod})
		if err != nil {
			t.Fatal(err)
		}
		inst.Stdin().Write([]byte("{\"type\":\"init\"}\n"))
		if tc.hangUp {
			sc := bufio.NewScanner(inst.Stdout())
			sc.Scan() // the prompt: it now waits for the answer
			inst.Stdin().Close()
		}
		tu.Receive(t, tc.name+": the instance to exit", inst.Exited())
		if code, _, f := inst.Result(); code != tc.want || f != nil {
			t.Errorf("%s: exit %d %v, want %d", tc.name, code, f, tc.want)
		}
	}
}

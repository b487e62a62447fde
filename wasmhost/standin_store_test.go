package wasmhost

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	tu "github.com/corvidlabs/fledge-go/internal/testutil"
)

// sayModule is a module whose _start sends msg, which is its data.
func sayModule(msg string) []byte {
	return tu.WasmModule{Imports: []tu.WasmImport{fSend}, MemPages: 1, Data: msg,
		Start: seq(tu.I32Const(0), tu.I32Const(int32(len(msg))), call(0))}.Bytes()
}

// TestStoredStandIn: the stand-in is stored beside the record when its
// entry is filed, and a run uses it as it is. A stored stand-in that is
// not this module's, byte for byte (missing, another module's, of another
// revision, not wasm, or this one's with a section added), never runs: the
// run does what the module does, and stores the true stand-in again.
func TestStoredStandIn(t *testing.T) {
	const msg = `{"type":"output","text":"A"}`
	mod := sayModule(msg)
	sum := sha256.Sum256(mod)
	dir := t.TempDir()
	if err := Check(context.Background(), mod, dir); err != nil {
		t.Fatal(err)
	}
	stored := filepath.Join(dir, WazeroVersion, hex.EncodeToString(sum[:]), standInFile)
	want, _ := standIn(mod, sum)
	if got, err := os.ReadFile(stored); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after a compile the stored stand-in is %d bytes (%v), want the module's stand-in", len(got), err)
	}
	say := func(what string) {
		t.Helper()
		forgetCaches()
		inst, err := Start(Config{Module: mod, CacheDir: dir, Args: []string{"cmd"}})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		inst.Stdin().Close()
		var lines []string
		done := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(inst.Stdout())
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			close(done)
		}()
		select {
		case <-inst.Exited():
		case <-time.After(20 * time.Second):
			inst.Stop(true)
			t.Fatalf("%s: the instance did not end", what)
		}
		tu.Receive(t, "the output reader to finish", done)
		if code, _, f := inst.Result(); code != 0 || f != nil || len(lines) != 1 || lines[0] != msg {
			t.Fatalf("%s: exit %d, %v, output %q; want the module's %q", what, code, f, lines, msg)
		}
	}

	before, err := os.Stat(stored)
	if err != nil {
		t.Fatal(err)
	}
	say("the stored stand-in")
	if after, err := os.Stat(stored); err != nil || !os.SameFile(before, after) {
		t.Error("a run built and stored the stand-in again instead of using the stored one")
	}

	other := sayModule(`{"type":"output","text":"B"}`)
	otherSI, _ := standIn(other, sha256.Sum256(other))
	// This module's stand-in with a custom section added: it would run
	// its own code, `unreachable`, if it were compiled.
	changed := append(append(bytes.Clone(want[:8]), 0, 2, 1, 'x'), want[8:]...)
	oldRevision := bytes.Clone(want)
	oldRevision[len(oldRevision)-1]--
	for _, tc := range []struct {
		what  string
		bytes []byte // nil: none stored
	}{
		{"no stored stand-in", nil},
		{"another module's stand-in", otherSI},
		{"one of another revision", oldRevision},
		{"one that is not wasm", append([]byte("not wasm"), want[len(want)-64:]...)},
		{"this module's, a section added", changed},
	} {
		if err := os.Remove(stored); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if tc.bytes != nil {
			if err := os.WriteFile(stored, tc.bytes, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		say(tc.what)
		if got, err := os.ReadFile(stored); err != nil || !bytes.Equal(got, want) {
			t.Errorf("with %s: the run left %d bytes stored (%v), want the module's stand-in", tc.what, len(got), err)
		}
	}
	if own := moduleEntries(t, dir); len(own) != 1 {
		t.Errorf("module entries %v: want the one the compile made", own)
	}
}

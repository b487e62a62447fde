// Package derivedtest helps the tests of packages that keep derived files
// under stamps (derived.Stamp) reach the stamped path: files just written
// count as changed too recently, and a test cannot age a change time.
package derivedtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/corvidlabs/fledge-go/internal/derived"
)

// Settle makes every file count as settled for derived.Stamp until the test
// ends. Not for parallel tests: the clock it moves is shared.
func Settle(t testing.TB) {
	t.Helper()
	t.Cleanup(derived.SettleForTest())
}

// NextTick waits until a file changed now is stamped later than one
// changed before the call: the kernel's file times advance in ticks, and
// two changes in one tick are what derived.StampMargin guards against (and
// Settle turns off).
func NextTick(t testing.TB) {
	t.Helper()
	probe := filepath.Join(t.TempDir(), "probe")
	touch := func() time.Time {
		t.Helper()
		if err := os.WriteFile(probe, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(probe)
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	first := touch()
	deadline := time.Now().Add(10 * time.Second)
	for touch().Equal(first) {
		if time.Now().After(deadline) {
			t.Fatal("file times did not advance in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// WaitSettled waits until the file at path counts as settled for
// derived.Stamp by the real clock (derived.StampMargin after its last
// change), for benchmarks of a process that reads it as a home's
// plugins.toml is read between installs.
func WaitSettled(t testing.TB, path string) {
	t.Helper()
	deadline := time.Now().Add(derived.StampMargin + 10*time.Second)
	for {
		if _, ok := derived.Stamp(path); ok {
			return
		}
		if _, err := os.Stat(path); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has not settled after %v", path, derived.StampMargin+10*time.Second)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

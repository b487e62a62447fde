package install

import (
	"os"
	"testing"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// TestMain runs the tests four to a CPU, with their scratch files in
// memory where the machine allows: they wait on git, hooks and plugin
// processes far more than they compute.
func TestMain(m *testing.M) {
	// Hooks run through the running binary, which confines itself.
	if confine.IsTrampoline(os.Args) {
		os.Exit(confine.Trampoline(os.Args, os.Stderr))
	}
	os.Exit(testutil.RunWaiting(m))
}

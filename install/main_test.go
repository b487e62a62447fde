package install

import (
	"fmt"
	"os"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// TestMain runs the tests four to a CPU: they wait on git, hooks and
// plugin processes far more than they compute. Their scratch files go to
// memory where the machine allows (testutil.Scratch).
func TestMain(m *testing.M) {
	if err := testutil.WaitingTests(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	scratchDone := testutil.Scratch()
	code := m.Run()
	scratchDone()
	os.Exit(code)
}

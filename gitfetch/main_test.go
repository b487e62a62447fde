package gitfetch

import (
	"fmt"
	"os"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// TestMain lets four tests run to a CPU: most of these wait on slow and
// silent servers, idle windows and cancellations, not on the CPU. Their
// scratch files go to memory where the machine allows (testutil.Scratch).
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

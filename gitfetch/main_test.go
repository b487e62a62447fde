package gitfetch

import (
	"os"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// TestMain runs the tests four to a CPU, with their scratch files in
// memory where the machine allows: most of them wait on slow and silent
// servers, idle windows and cancellations, not on the CPU.
func TestMain(m *testing.M) { os.Exit(testutil.RunWaiting(m)) }

package install

import (
	"os"
	"testing"

	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// TestMain runs the tests four to a CPU, with their scratch files in
// memory where the machine allows: they wait on git, hooks and plugin
// processes far more than they compute.
func TestMain(m *testing.M) { os.Exit(testutil.RunWaiting(m)) }

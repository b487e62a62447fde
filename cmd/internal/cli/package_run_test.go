package cli_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/corvidlabs/fledge-go/cmd/internal/cli"
	"github.com/corvidlabs/fledge-go/internal/testutil"
)

// packageRun runs this package's tests for testscript.Main. Most of them
// drive fledge, plugins, git fixtures and terminals as real processes and
// spend their time waiting on them, not computing, so by default they run
// four to a CPU instead of go test's one (an explicit -parallel still
// wins), with their scratch files in memory where the machine allows
// (testutil.Scratch). Afterwards it removes what the tests shared.
type packageRun struct{ m *testing.M }

func (p packageRun) Run() int {
	if err := testutil.WaitingTests(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer testutil.Scratch()()
	defer cli.RemoveBuiltFledge()
	return p.m.Run()
}

// buildFledge returns ./cmd/fledge, built once for the package.
func buildFledge(t *testing.T) string { return cli.BuildFledge(t) }

package testutil

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// WaitingTests sets -test.parallel to four per CPU unless the command line
// set it. Call it from TestMain before m.Run, in packages whose tests
// spend their time waiting on processes (plugins, hooks, git, terminals)
// or on timeouts, not computing: go test's default of one per CPU leaves
// the CPUs idle while they wait. A fuzz run (-fuzz) is left alone.
func WaitingTests() error {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	// -parallel is also the number of fuzz workers: a fuzz run keeps go
	// test's one per CPU, which is what its workers can use.
	if fz := flag.Lookup("test.fuzz"); explicit || (fz != nil && fz.Value.String() != "") {
		return nil
	}
	return flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
}

// RunWaiting is m.Run for a package whose tests wait on processes, servers
// and timeouts more than they compute: four tests to a CPU (WaitingTests)
// and their scratch files in memory where the machine allows (Scratch).
func RunWaiting(m *testing.M) int {
	if err := WaitingTests(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer Scratch()()
	return m.Run()
}

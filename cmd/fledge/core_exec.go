//go:build fledge_split && unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/runner"
)

// coreName is the command line's binary, beside this one.
const coreName = "fledge-core"

// core is the command line in fledge-core, exec'd in this process's
// place: same pid, streams, environment and signal disposition, so the
// command line answers as if it had been run (its exit code is fledge's).
func core() fastrun.Core {
	return fastrun.Core{
		Main: func(args []string) int { return execCore(args) },
		Report: func(res *runner.Result, err error) int {
			return execCore([]string{fastrun.OutcomeWord, fastrun.EncodeOutcome(res, err)})
		},
		Binary: corePath,
	}
}

// corePath is fledge-core's path: beside this binary, links resolved.
func corePath() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(exe), coreName), nil
}

// execCore replaces this process with fledge-core args; it returns only
// when that cannot be done, having said why and what to do.
func execCore(args []string) int {
	path, err := corePath()
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: fledge cannot find where it is installed, to run %s beside it: %v\n", coreName, err)
		return 1
	}
	err = syscall.Exec(path, append([]string{path}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "error: fledge runs its commands other than a plugin's with %s, and cannot run %s: %v\nhint: install fledge again: the release archive holds both fledge and %s, which go in the same directory\n", coreName, path, err, coreName)
	return 1
}

package pluginsdk

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/corvidlabs/fledge-go/protocol"
)

// Exit codes Main uses besides 0 and a plugin's own (see ExitCode).
const (
	ExitFailure     = 1
	ExitInterrupted = 130
)

// Main runs a plugin: it connects to fledge over stdin and stdout, reads
// init, calls run, reports run's error to fledge as an error log, and exits
// the process with ExitCode(err). It does not return.
func Main(run func(p *IO, init *protocol.Init) error) {
	name := "plugin"
	if len(os.Args) > 0 { // a wasm plugin may be given no argv at all
		name = filepath.Base(os.Args[0])
	}
	os.Exit(mainIO(New(), os.Stderr, name, run))
}

func mainIO(p *IO, stderr io.Writer, name string, run func(*IO, *protocol.Init) error) int {
	init, err := p.RecvInit()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitCode(err)
	}
	err = run(p, init)
	if err == nil {
		return 0
	}
	var ce *CancelError
	// A run-wide cancel means fledge is stopping us: it already knows.
	if !errors.As(err, &ce) || ce.ID != "" {
		if p.Log(LevelError, err.Error()) != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
		}
	}
	return ExitCode(err)
}

// ExitCode maps a plugin's error to its exit status: 0 for nil; the code of
// the first error in the chain with an ExitCode() int method; 130 when
// fledge canceled the run (Ctrl+C, a timeout); 1 otherwise, including a
// single request canceled because no human could answer it.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	var ce *CancelError
	if errors.As(err, &ce) && (ce.ID == "" || ce.Reason == protocol.ReasonUserInterrupt) {
		return ExitInterrupted
	}
	return ExitFailure
}

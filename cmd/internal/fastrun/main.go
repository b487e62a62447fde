package fastrun

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/corvidlabs/fledge-go/home"
	"github.com/corvidlabs/fledge-go/internal/derived"
	"github.com/corvidlabs/fledge-go/policy"
	"github.com/corvidlabs/fledge-go/runner"
)

// ExitInterrupted is fledge's exit code after the user's Ctrl+C stopped
// what it ran.
const ExitInterrupted = 130

// Core is the rest of fledge, which fastrun hands what it does not finish
// itself.
type Core struct {
	// Main runs fledge for args, as the command line does.
	Main func(args []string) int
	// Report ends `fledge <command>` for a run fastrun started that the
	// command line must end: it shows the run's error and its hint, and
	// returns fledge's exit code.
	Report func(res *runner.Result, err error) int
	// Binary is the command line's executable when it is not this one
	// (fledge-core), whose derived files — the stored `plugins list
	// --json` documents, the command index, decoded manifests — fastrun
	// uses as its own (derived.ActAs); nil when it is this one.
	Binary func() (string, error)
	// Wasm runs wasm plugins when this binary links the engine (the
	// command line's, in the ordinary build); nil in the split fledge,
	// which then hands a wasm plugin's run to fledge-core untouched.
	Wasm runner.WasmEngine
}

// Main is fledge for args: the version, a plugin command run for a script
// or an agent, or else whatever Core makes of args. stamped is the version
// stamped at release (see Version).
func Main(args []string, stamped string, core Core) int {
	if VersionAsked(args) {
		_, _ = os.Stdout.WriteString(VersionLine(Version(stamped)))
		return 0
	}
	if core.Binary != nil {
		derived.ActAs(core.Binary)
	}
	if code, ok := run(args, stamped, core); ok {
		return code
	}
	if code, ok := list(args, core); ok {
		return code
	}
	return core.Main(args)
}

// list answers `fledge plugins list --json` with the document the command
// line stored for the inputs as they are now (ListKey), if it did: the
// listing scripts and agents repeat. ok is false when there is none.
func list(args []string, core Core) (code int, ok bool) {
	if len(args) != 3 || args[0] != "plugins" && args[0] != "plugin" || args[1] != "list" || args[2] != "--json" {
		return 0, false
	}
	paths, err := home.FromEnv(os.Getenv)
	if err != nil {
		return 0, false
	}
	if recoverable(paths) {
		return 0, false
	}
	hit, err := NewListKey(paths, os.Getenv, policy.SystemPath()).ServeList(os.Stdout, paths, derived.Identity())
	switch {
	case !hit:
		return 0, false
	case err != nil: // stdout failed: as the command line reports it
		FailJSON(os.Stdout, os.Stderr, JSONError{Code: CodeFailed, Message: ErrorText(WithoutSyscalls(err))})
		return 1, true
	}
	return 0, true
}

// run runs `fledge [--ni] <command> [args...]` when nothing of the run
// needs the command line: no terminal to ask on, draw on or colour for,
// nothing an interrupted fledge left to recover, settings that load. ok
// is false when it took nothing (and did nothing).
func run(args []string, stamped string, core Core) (code int, ok bool) {
	lead := 0
	for lead < len(args) && IsNonInteractiveFlag(args[lead]) {
		lead++
	}
	if lead == len(args) || !IsPluginCommand(args[lead]) || anyTerminal() || ColourOn(os.Getenv, false) {
		return 0, false
	}
	paths, err := home.FromEnv(os.Getenv)
	if err != nil {
		return 0, false
	}
	if recoverable(paths) {
		return 0, false
	}
	// Ctrl+C is caught from here on (its first use starts the signal
	// loop, which then overlaps reading the settings).
	ints := NewInterrupts()
	ctx, stop := ints.Notify(context.Background())
	defer stop()
	ui := &lineUI{w: os.Stderr}
	r, err := NewRunner(Wiring{
		Paths: paths, Version: Version(stamped), Getenv: os.Getenv, SystemPolicy: policy.SystemPath(), Now: time.Now,
		UI: ui, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Wasm: core.Wasm,
	})
	if err != nil {
		return 0, false
	}
	r.Tentative = true

	command, rest := args[lead], args[lead+1:]
	if rest == nil {
		rest = []string{}
	}
	// The user's first Ctrl+C: the plugin is asked to stop and given
	// seconds to do so. Say so at once, once, and how not to wait.
	done, watched := make(chan struct{}), make(chan struct{})
	var sayOnce sync.Once
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			sayOnce.Do(func() { ui.print(StoppingLine(command)) })
		case <-done:
		}
	}()
	res, err := r.Run(ctx, runner.Request{Command: command, Args: rest, NonInteractive: lead > 0, Kill: ints.Killed()})
	close(done)
	<-watched
	stop()
	switch {
	case res.Deferred():
		return 0, false // refused before anything happened (or a wasm plugin, and no engine): the command line's
	case !res.Started, err != nil && runner.CodeOf(err) != runner.CodeInterrupted:
		return core.Report(res, err), true
	case err != nil: // interrupted
		return ExitInterrupted, true
	}
	return res.ExitCode, true
}

// anyTerminal reports whether stdin, stdout or stderr is a terminal: a
// run with one may ask, draw or colour, which is the command line's.
func anyTerminal() bool {
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if term.IsTerminal(int(f.Fd())) {
			return true
		}
	}
	return false
}

// ColourOn decides colour for a stream (a terminal when tty), by the
// conventions of no-color.org and bixense.com/clicolors: never with
// NO_COLOR set (to anything), always with CLICOLOR_FORCE set (to anything
// but 0), otherwise on a terminal unless CLICOLOR=0 or TERM=dumb. fastrun
// writes no colour, so a run that would be coloured is the command line's.
func ColourOn(getenv func(string) string, tty bool) bool {
	switch {
	case getenv("NO_COLOR") != "":
		return false
	case getenv("CLICOLOR_FORCE") != "" && getenv("CLICOLOR_FORCE") != "0":
		return true
	}
	return tty && getenv("CLICOLOR") != "0" && getenv("TERM") != "dumb"
}

// recoverable reports whether an interrupted fledge may have left a
// plugin half-changed: deciding and recovering is the command line's
// (install.RecoverInterrupted, which reads the trash), so with a trash
// there at all, fastrun takes nothing.
func recoverable(paths home.Paths) bool {
	_, err := os.Lstat(paths.TrashDir())
	return !errors.Is(err, fs.ErrNotExist)
}

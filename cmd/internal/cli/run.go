package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/install"
	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/runner/wasmengine"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// EnvPromptTimeout and EnvConfine are fastrun's: see there.
const (
	EnvPromptTimeout = fastrun.EnvPromptTimeout
	EnvConfine       = fastrun.EnvConfine
)

// runOptions are the flags of `fledge plugins run`.
type runOptions struct {
	Command        string
	Args           []string
	NonInteractive bool
	JSON           bool
	Timeout        time.Duration
}

// runResultDoc is the single JSON object `plugins run --json` prints.
type runResultDoc struct {
	SchemaVersion int        `json:"schema_version"`
	Command       string     `json:"command"`
	Success       bool       `json:"success"`
	ExitCode      *int       `json:"exit_code"`
	Output        string     `json:"output"`
	Error         *jsonError `json:"error"`
}

func newRunCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run <command> [--ni] [--json] [--timeout D] [--] [args...]",
		Short: "Run an installed plugin command (for scripts and agents)",
		Long: `Run an installed plugin's command, as 'fledge <command>' does, with options
for scripts and agents. Up to a '--', --ni, --json and --timeout are fledge's
own wherever they appear; every other argument passes to the plugin verbatim.

  --ni           never prompt: questions get their default, or are cancelled
  --json         print one result object; the plugin's output goes into it
  --timeout D    stop the plugin after D (e.g. 30s, 5m, or seconds): it gets
                 cancel, then SIGINT, SIGTERM and SIGKILL within 3 s more`,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
				return c.Help()
			}
			opts, err := parseRunArgs(args)
			if opts != nil && opts.JSON {
				f.IO.Plain = true // nothing painted under --json
			}
			if err != nil {
				if wantsJSON(args) {
					printError(f.IO, err, true)
					return &exitCodeError{code: ExitUsage}
				}
				return err
			}
			return runRun(c.Context(), f, opts)
		},
	}
	cmd.ValidArgsFunction = completeRunArgs(f)
	return cmd
}

// parseRunArgs splits fledge's flags from the plugin's arguments: the first
// non-flag word is the command; --ni, --json and --timeout are fledge's
// until a "--", and everything else is the plugin's.
func parseRunArgs(args []string) (*runOptions, error) {
	opts := &runOptions{Args: []string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if opts.Command == "" {
				if i+1 >= len(args) {
					break
				}
				opts.Command = args[i+1]
				i++
				opts.Args = append(opts.Args, args[i+1:]...)
			} else {
				opts.Args = append(opts.Args, args[i+1:]...)
			}
			break
		}
		switch {
		case a == "--ni":
			opts.NonInteractive = true
		case a == "--json":
			opts.JSON = true
		case a == "--timeout" || strings.HasPrefix(a, "--timeout="):
			v, ok := strings.CutPrefix(a, "--timeout=")
			if !ok {
				if i+1 >= len(args) {
					return nil, usageErrorf("--timeout needs a duration, such as 30s or 5m")
				}
				i++
				v = args[i]
			}
			d, err := parseDuration(v)
			if err != nil || d <= 0 {
				return nil, usageErrorf("--timeout %q: want a positive duration such as 30s, 5m or 90", v)
			}
			opts.Timeout = d
		case opts.Command == "":
			if strings.HasPrefix(a, "-") {
				return nil, usageErrorf("unknown flag %q before the command (fledge's flags are --ni, --json and --timeout)", a)
			}
			opts.Command = a
		default:
			opts.Args = append(opts.Args, a)
		}
	}
	if opts.Command == "" {
		return nil, usageErrorf("plugins run needs the command to run: fledge plugins run <command> [args...]")
	}
	return opts, nil
}

// wantsJSON reports whether --json appears among fledge's own arguments.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
	}
	return false
}

// parseDuration accepts a Go duration or a number of seconds.
func parseDuration(s string) (time.Duration, error) { return fastrun.ParseDuration(s) }

// runPluginCommand runs `fledge <command> [args...]`: every argument passes
// verbatim and fledge exits with the plugin's own code.
func runPluginCommand(ctx context.Context, f *Factory, command string, args []string) error {
	if args == nil {
		args = []string{}
	}
	return runRun(ctx, f, &runOptions{Command: command, Args: args, NonInteractive: f.IO.ForceNonInteractive})
}

func runRun(ctx context.Context, f *Factory, opts *runOptions) error {
	r, ui, err := newRunner(f, opts)
	if err != nil {
		if opts.JSON {
			return printRunResult(f, opts, &runner.Result{Command: opts.Command, ExitCode: -1}, err)
		}
		return err
	}
	req := runner.Request{
		Command:        opts.Command,
		Args:           opts.Args,
		NonInteractive: opts.NonInteractive,
		Timeout:        opts.Timeout,
		Capture:        opts.JSON,
		Kill:           f.interrupts.Killed(),
	}
	// The user's first Ctrl+C, as a signal or as a key that abandons a
	// question: the plugin is asked to stop and given seconds to do so.
	// Say so at once, once, and how not to wait.
	var sayOnce sync.Once
	stopping := func() {
		sayOnce.Do(func() {
			ui.print(fastrun.StoppingLine(opts.Command))
		})
	}
	if abandoned := ui.abandoned; abandoned != nil {
		ui.abandoned = func() { abandoned(); stopping() }
	}
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ctx.Done():
			stopping()
		case <-done:
		}
	}()
	res, err := r.Run(ctx, req)
	close(done)
	<-watched
	ui.close()
	if opts.JSON {
		return printRunResult(f, opts, res, err)
	}
	return runOutcome(f, res, err)
}

// runOutcome is how `fledge <command>` ends: fledge's error when the
// command never started, else the program's own exit code (with fledge's
// error shown when something else went wrong, such as a timeout).
func runOutcome(f *Factory, res *runner.Result, err error) error {
	if !res.Started {
		return withCode(runErrorCode(err), err, runHint(f, res, err))
	}
	if err != nil && runner.CodeOf(err) != runner.CodeInterrupted {
		printError(f.IO, withCode(runErrorCode(err), err, runHint(f, res, err)), false)
	}
	if code, ok := stoppedExitCode(err); ok {
		return &exitCodeError{code: code}
	}
	if res.ExitCode == 0 {
		return nil
	}
	return &exitCodeError{code: res.ExitCode}
}

// stoppedExitCode is fledge's exit code for a run that fledge stopped,
// whatever the plugin exited with then: 130 after the user's Ctrl+C, 1
// after a --timeout.
func stoppedExitCode(err error) (int, bool) {
	switch runner.CodeOf(err) {
	case runner.CodeInterrupted:
		return ExitInterrupted, true
	case runner.CodeTimeout:
		return ExitFailure, true
	}
	return 0, false
}

// newRunner wires the runner to the process (fastrun.NewRunner, the one
// wiring of a run) with the terminal UI, after recovering what an
// interrupted fledge left half-changed.
func newRunner(f *Factory, opts *runOptions) (*runner.Runner, *runUI, error) {
	paths, err := f.Paths()
	if err != nil {
		return nil, nil, err
	}
	// The runner reads plugins.toml itself (and never imports install):
	// a half-changed plugin is recovered here first, or nothing runs.
	if err := recoverInterrupted(f, paths, lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock())); err != nil {
		return nil, nil, err
	}
	ui := newRunUI(f.IO, f.Prompter)
	ui.draw = ui.draw && !opts.JSON // --json: no spinners, even on a terminal
	ui.abandoned = f.interrupts.Abandoned
	r, err := fastrun.NewRunner(fastrun.Wiring{
		Paths: paths, Version: f.Version, Getenv: f.Getenv, SystemPolicy: f.SystemPolicy, Now: f.Now,
		UI: ui, Stdin: f.IO.In, Stdout: f.IO.Out, Stderr: f.IO.ErrOut, StdoutTTY: f.IO.OutTTY,
		Interactive: f.IO.CanPrompt() && !opts.NonInteractive, Wasm: wasmengine.Engine{},
	})
	var usage *fastrun.UsageError
	if errors.As(err, &usage) {
		return nil, nil, usageErrorf("%s", usage.Msg)
	}
	if err != nil {
		return nil, nil, err
	}
	return r, ui, nil
}

// printRunResult prints the one JSON object of `plugins run --json`, and
// exits with the plugin's code (or fledge's, when it never ran).
func printRunResult(f *Factory, opts *runOptions, res *runner.Result, err error) error {
	doc := runResultDoc{SchemaVersion: SchemaVersion, Command: opts.Command, Output: res.Output}
	if res.Started {
		code := res.ExitCode
		doc.ExitCode = &code
	}
	doc.Success = err == nil && res.Success()
	if err != nil {
		hint := runHint(f, res, err)
		doc.Error = &jsonError{Code: runErrorCode(err), Message: termsafe.EscapeText(err.Error()), Hint: termsafe.EscapeText(hint)}
		fmt.Fprintf(f.IO.ErrOut, "error: %s\n", termsafe.EscapeText(err.Error()))
		if hint != "" {
			fmt.Fprintf(f.IO.ErrOut, "hint: %s\n", termsafe.EscapeText(hint))
		}
	}
	if werr := writeJSON(f.IO.Out, doc); werr != nil {
		return werr
	}
	if code, ok := stoppedExitCode(err); ok && res.Started {
		return &exitCodeError{code: code}
	}
	switch {
	case res.Started && res.ExitCode != 0:
		return &exitCodeError{code: res.ExitCode}
	case res.Started && err == nil:
		return nil
	case err != nil:
		return &exitCodeError{code: exitCode(withCode(runErrorCode(err), err, ""))}
	}
	return nil
}

// runErrorCode is the error code of a failed run.
func runErrorCode(err error) string {
	if c := runner.CodeOf(err); c != "" {
		return c
	}
	return errorCode(err)
}

// runHint is the advice for a failed run.
func runHint(f *Factory, res *runner.Result, err error) string {
	switch runner.CodeOf(err) {
	case runner.CodeUnknownCommand:
		return "see the installed commands: " + commandLine("plugins", "list")
	case runner.CodeProtocolMismatch:
		return "upgrade fledge to run this plugin"
	case runner.CodePluginMissing, runner.CodeLaunchFailed, runner.CodeBinaryOutsidePlugin, runner.CodeManifestChanged:
		if p := runEntry(f, res); p != nil {
			return "see what changed: " + commandLine("plugins", "verify", p.Name) + "; to review and reinstall it: " + reinstallCommand(p)
		}
	case runner.CodeCapabilityNotAllowed:
		if p := runEntry(f, res); p != nil {
			return deniedHint(f, p, res.Denied)
		}
	case runner.CodeUnsupportedPlatform:
		return platformHint(err, res.Source)
	case runner.CodeTimeout:
		if p := runEntry(f, res); p != nil && p.Runtime == manifest.RuntimeWasm {
			return fmt.Sprintf("it did not finish in time: a wasm plugin has --timeout to finish, or %s without it; give it longer with --timeout", runner.DefaultWasmRun)
		}
		return "it did not finish within --timeout: give it longer, or leave --timeout out for no limit"
	case runner.CodeStateCorrupt:
		return "fix or move aside plugins.toml"
	}
	if errors.Is(err, context.Canceled) {
		return ""
	}
	return errorHint(err)
}

// runEntry is the record of the plugin a run used (or that owns its
// command, when it failed before it started), or nil.
func runEntry(f *Factory, res *runner.Result) *lockfile.Plugin {
	if res == nil {
		return nil
	}
	paths, err := f.Paths()
	if err != nil {
		return nil
	}
	file, err := lockfile.NewStore(paths.PluginsFile(), paths.PluginsLock()).Load()
	if err != nil {
		return nil
	}
	if res.Plugin == "" {
		p, _ := file.CommandOwner(res.Command)
		return p
	}
	p, _ := file.Get(res.Plugin)
	return p
}

// deniedHint says how to grant what a plugin was denied: with grant, for
// what its manifest requests; what it does not request, fledge cannot
// grant.
func deniedHint(f *Factory, p *lockfile.Plugin, denied []manifest.Capability) string {
	paths, err := f.Paths()
	if err != nil {
		return ""
	}
	set, _ := loadSettings(f, paths)
	r, _, err := install.InstalledRequest(paths, p, set.Tier(p))
	if err != nil {
		return ""
	}
	var grantable, not []string
	for _, c := range denied {
		if r.Capabilities.Has(c) {
			grantable = append(grantable, string(c))
		} else {
			not = append(not, string(c))
		}
	}
	var parts []string
	if len(grantable) > 0 {
		parts = append(parts, "to grant it: "+commandLine(append([]string{"plugins", "grant", p.Name}, grantable...)...))
	}
	if len(not) > 0 {
		parts = append(parts, fmt.Sprintf("its plugin.toml does not request %s, so fledge cannot grant it: tell the plugin's author", strings.Join(not, ", ")))
	}
	return strings.Join(parts, "; ")
}

package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/corvidlabs/fledge-go/lockfile"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// runExternal runs `fledge <name> [args...]` as a fledge-<name> program on
// PATH, when no installed plugin provides <name> (see runner.FindExternal
// for which programs count). It reports whether one was found; the error
// is then the program's outcome, its exit code passed through. Built-in
// commands never get here, so a program on PATH never shadows one.
func runExternal(ctx context.Context, f *Factory, name string, args []string) (bool, error) {
	paths, err := f.Paths()
	if err != nil {
		return false, nil
	}
	ext, ok := runner.FindExternal(paths, f.Getenv("PATH"), name)
	if !ok {
		return false, nil
	}
	opts := &runOptions{Command: name, Args: args, NonInteractive: f.IO.ForceNonInteractive}
	r, ui, err := newRunner(f, opts)
	if err != nil {
		return true, err
	}
	res, err := r.RunExternal(ctx, ext, runner.Request{Command: name, Args: args, NonInteractive: opts.NonInteractive,
		Kill: f.interrupts.Killed()})
	ui.close()
	return true, runOutcome(f, res, err)
}

// externalJSON is a fledge-<name> program on PATH in list and audit's
// "externals" array: beside the plugins, never among them, because fledge
// did not install it and grants it nothing.
type externalJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// externals lists the programs on PATH that `fledge <name>` would run: not
// a built-in's name, nor a command an installed plugin provides (which
// win). raw is runner.Externals' list.
func externals(raw []runner.External, file *lockfile.File) []externalJSON {
	out := []externalJSON{}
	words := builtinWords
	for _, e := range raw {
		if !isPluginCommand(words, e.Name) {
			continue
		}
		if _, installed := file.CommandOwner(e.Name); installed {
			continue
		}
		out = append(out, externalJSON{Name: e.Name, Path: e.Path})
	}
	return out
}

// printExternals shows the externals after list's or audit's plugins.
func printExternals(w io.Writer, exts []externalJSON) {
	if len(exts) == 0 {
		return
	}
	fmt.Fprintln(w, "\nOn PATH, not installed by fledge (they run as 'fledge <name>' with your permissions, no grants):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, e := range exts {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Name, termsafe.Escape(e.Path))
	}
	tw.Flush()
}

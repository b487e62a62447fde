// Command fledge-hello is the reference fledge-v1 plugin written in Go. It
// walks through every message type of the protocol in one run: log, output,
// prompt (validated), confirm, select, multi_select, determinate progress,
// store/load, exec, metadata and a spinner.
//
// Every question has a default, so it also runs without a terminal (CI,
// agents, `fledge plugins run hello --ni`), where fledge answers with the
// defaults. If fledge cancels the run (Ctrl+C), it clears its progress display
// and exits 130.
//
// It is built by the [hooks] build command of its plugin.toml and run by
// fledge as `fledge hello [name] [steps] [delay_ms]`.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/protocol"
)

func main() { pluginsdk.Main(run) }

// Store keys, kept between runs by fledge (with the store capability).
const keyLastName = "last_name"

// The extras a user may pick in the multi_select step.
const (
	extraStore    = "store round trip"
	extraExec     = "run a command"
	extraMetadata = "project metadata"
	extraSpinner  = "spinner"
)

var (
	birds  = []string{"raven", "magpie", "jackdaw", "rook"}
	extras = []string{extraStore, extraExec, extraMetadata, extraSpinner}
)

// options are the command's positional arguments, as declared in
// plugin.toml: [name] [steps] [delay_ms].
type options struct {
	name  string
	steps int
	delay time.Duration
}

func parseArgs(args []string) (options, error) {
	o := options{name: "world", steps: 5, delay: 150 * time.Millisecond}
	if len(args) > 3 {
		return o, fmt.Errorf("too many arguments: usage: fledge hello [name] [steps] [delay_ms]")
	}
	if len(args) > 0 && strings.TrimSpace(args[0]) != "" {
		o.name = args[0]
	}
	if len(args) > 1 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 0 || n > 100 {
			return o, fmt.Errorf("steps: %q is not a whole number from 0 to 100", args[1])
		}
		o.steps = n
	}
	if len(args) > 2 {
		ms, err := strconv.Atoi(args[2])
		if err != nil || ms < 0 || ms > 5000 {
			return o, fmt.Errorf("delay_ms: %q is not a whole number from 0 to 5000", args[2])
		}
		o.delay = time.Duration(ms) * time.Millisecond
	}
	return o, nil
}

func run(p *pluginsdk.IO, init *protocol.Init) error {
	if init.Command != "" && init.Command != "hello" {
		return fmt.Errorf("unknown command %q: this plugin provides \"hello\"", init.Command)
	}
	opts, err := parseArgs(init.Args)
	if err != nil {
		return err
	}

	// Fire-and-forget sends (log, output, progress, store) fail only when
	// fledge has gone away, and then the next request fails too, so the
	// walkthrough checks the requests' errors and not each send's.

	// 1. log: diagnostics, shown apart from the output.
	p.Logf(pluginsdk.LevelInfo, "%s %s speaking %s with fledge %s", init.Plugin.Name, init.Plugin.Version, init.Protocol, init.Fledge.Version)
	p.Logf(pluginsdk.LevelDebug, "args %q, capabilities exec=%t store=%t metadata=%t",
		init.Args, init.Capabilities.Exec, init.Capabilities.Store, init.Capabilities.Metadata)

	// 2. output: the plugin's result, printed verbatim.
	where := "outside any project"
	if init.Project != nil {
		where = fmt.Sprintf("in %s (%s)", init.Project.Name, orDash(init.Project.Language))
		if g := init.Project.Git; g != nil {
			where += fmt.Sprintf(" on branch %s", g.Branch)
		}
	}
	p.Outputf("Hello from a Go plugin, %s.\n", where)

	// 3. prompt, validated by fledge.
	name, err := p.Prompt("What's your name?", opts.name, protocol.ValidateNonEmpty)
	if err != nil {
		return err
	}
	// 4. confirm.
	showProgress, err := p.Confirm("Show a progress bar?", true)
	if err != nil {
		return err
	}
	// 5. select.
	bird, err := p.Select("Favourite corvid?", birds, "raven")
	if err != nil {
		return err
	}
	// 6. multi_select.
	picked, err := p.MultiSelect("Which extras should I show?", extras, extras)
	if err != nil {
		return err
	}
	p.Outputf("Hello, %s! A fine choice: the %s.\n", name, bird)

	// 7. determinate progress.
	if showProgress && opts.steps > 0 {
		if err := progressBar(p, opts.steps, opts.delay); err != nil {
			return err
		}
	}

	// 8. store / load round trip.
	if slices.Contains(picked, extraStore) {
		if err := storeRoundTrip(p, init, name); err != nil {
			return err
		}
	}
	// 9. exec.
	if slices.Contains(picked, extraExec) {
		if err := execDemo(p); err != nil {
			return err
		}
	}
	// 10. metadata.
	if slices.Contains(picked, extraMetadata) {
		if err := metadataDemo(p); err != nil {
			return err
		}
	}
	// 11. spinner.
	if slices.Contains(picked, extraSpinner) {
		p.Spinner("Tidying the nest")
		err := sleep(p.Context(), 2*opts.delay)
		p.ProgressDone()
		if err != nil {
			return err
		}
	}
	return p.Output("Done: every fledge-v1 message type, from Go.\n")
}

func progressBar(p *pluginsdk.IO, steps int, delay time.Duration) error {
	defer p.ProgressDone() // also when canceled: leave no bar behind
	for i := 0; i <= steps; i++ {
		p.Progress("Preening feathers", i, steps)
		if i < steps {
			if err := sleep(p.Context(), delay); err != nil {
				return err
			}
		}
	}
	return nil
}

func storeRoundTrip(p *pluginsdk.IO, init *protocol.Init, name string) error {
	if !init.Capabilities.Store {
		p.Log(pluginsdk.LevelWarn, "store is not granted: fledge drops store and answers load with null")
	}
	last, found, err := p.Load(keyLastName)
	if err != nil {
		return err
	}
	if found && last != name {
		p.Outputf("store: last time you were %s.\n", last)
	}
	p.Store(keyLastName, name)
	got, found, err := p.Load(keyLastName)
	switch {
	case err != nil:
		return err
	case !found:
		p.Output("store: nothing stored (store not granted).\n")
	case got == name:
		p.Outputf("store: saved %q and read it back.\n", name)
	default:
		return fmt.Errorf("store round trip: saved %q, read back %q", name, got)
	}
	return nil
}

func execDemo(p *pluginsdk.IO) error {
	const cmd = "git rev-parse --short HEAD"
	res, err := p.Exec(cmd, "", 10*time.Second)
	if err != nil {
		return err
	}
	switch res.Code {
	case 0:
		p.Outputf("exec: %s → %s\n", cmd, strings.TrimSpace(res.Stdout))
	case protocol.ExitDenied:
		p.Output("exec: not granted (code 126).\n")
	default:
		p.Outputf("exec: %s exited %d: %s\n", cmd, res.Code, firstLine(res.Stderr))
	}
	return nil
}

func metadataDemo(p *pluginsdk.IO) error {
	meta, err := p.Metadata(protocol.MetaGitTags, protocol.MetaGitStatus, protocol.MetaGitLog)
	if err != nil {
		return err
	}
	if len(meta) == 0 {
		p.Output("metadata: not granted (empty answer).\n")
		return nil
	}
	tags, changed, commits := list(meta[protocol.MetaGitTags]), list(meta[protocol.MetaGitStatus]), list(meta[protocol.MetaGitLog])
	p.Outputf("metadata: tags %s, changed files %s, recent commits %s.\n", count(tags), count(changed), count(commits))
	return nil
}

// list decodes a metadata value that should be a list of strings; nil when
// it is absent, null or something else.
func list(raw json.RawMessage) []string {
	var out []string
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

func count(l []string) string {
	if l == nil {
		return "?"
	}
	return strconv.Itoa(len(l))
}

// sleep waits for d, or returns early with the cancel when fledge cancels.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

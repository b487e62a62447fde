package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/corvidlabs/fledge-go/confine"
	"github.com/corvidlabs/fledge-go/internal/procgroup"
	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// detectors are the build systems fledge recognises when a plugin has no
// build hook, in the Rust fledge's order.
var detectors = []struct{ file, command string }{
	{"Cargo.toml", "cargo build --release"},
	{"Package.swift", "swift build -c release"},
	{"go.mod", "go build ."},
	{"package.json", "npm install"},
}

// BuildCommand returns the command that builds the plugin in dir: its build
// hook, or one detected from its files. Detection only happens when some
// command's binary is missing, so a plugin that ships its binaries runs no
// code at install (the Rust fledge always builds).
func BuildCommand(m *manifest.Manifest, dir string) (cmd string, auto bool) {
	if m.Hooks.Build != "" {
		return m.Hooks.Build, false
	}
	missing := false
	for _, c := range m.Commands {
		if manifest.CheckBinaryPath(c.Binary) != "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(c.Binary))); err != nil {
			missing = true
		}
	}
	if !missing {
		return "", false
	}
	for _, d := range detectors {
		if fi, err := os.Lstat(filepath.Join(dir, d.file)); err == nil && fi.Mode().IsRegular() {
			return d.command, true
		}
	}
	return "", false
}

// tailLines is how many lines of a failed hook's output the error repeats.
const tailLines = 20

// HookError reports a hook or build command that failed.
type HookError struct {
	Hook    string
	Command string
	Err     error
	// Tail is the end of the command's output.
	Tail string
	// Confined says the kernel confined the command (see confineHook):
	// a refusal in its output may be the confinement's.
	Confined bool
}

func (e *HookError) Error() string {
	why := e.Err.Error()
	var ee *exec.ExitError
	if errors.As(e.Err, &ee) && ee.Exited() {
		why = fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	msg := fmt.Sprintf("%s (%s) failed: %s", e.Hook, termsafe.Escape(e.Command), why)
	if e.Tail != "" {
		msg += "\nlast lines of output:\n" + e.Tail
	}
	return msg
}

func (e *HookError) Unwrap() error { return e.Err }

// UnsafeCommandError reports a hook or build command that fledge refuses
// to run because a terminal would not show it as it is.
type UnsafeCommandError struct {
	Hook    string
	Command string
	// Reason says what it contains, and where.
	Reason string
}

func (e *UnsafeCommandError) Error() string {
	// Cut: the command may be padding itself.
	return fmt.Sprintf("the %s hook (%s) is not run: it %s", e.Hook, termsafe.Escape(termsafe.Truncate(e.Command, 80)), e.Reason)
}

// checkCommand refuses a command that a terminal would show differently
// from what runs. Validation refuses such hooks before approval; this
// guards every run, including hooks recorded before that rule existed.
func checkCommand(name, command string) error {
	if msg := manifest.CheckCommand(command); msg != "" {
		return &UnsafeCommandError{Hook: name, Command: command, Reason: msg}
	}
	return nil
}

// hookOutputGrace is how long a hook's output is still read once the hook
// has exited. Only a process the hook left in the background can still be
// writing then (a build daemon, a server started with &): the install does
// not wait on it longer than this.
const hookOutputGrace = time.Second

// runHook runs a hook command in dir with its output streamed, sanitised, to
// out, confined by the kernel (see confineHook). A command that names a
// file inside dir is executed directly (as the Rust fledge does for script
// hooks); anything else runs through the shell, so hooks such as
// `swift build && cp …` work. A command that cannot be shown byte-exact
// never runs.
func (in *Installer) runHook(ctx context.Context, name, command, dir string, env []string, out io.Writer) error {
	if err := checkCommand(name, command); err != nil {
		return err
	}
	cmd := hookCommand(ctx, command, dir)
	cmd.Dir = dir
	cmd.Env = env
	unconfine, profile, err := in.confineHook(cmd, name, dir)
	if err != nil {
		return &HookError{Hook: name, Command: command, Err: err}
	}
	defer unconfine()
	cmd.Stdin = nil
	tail := &tailBuffer{max: tailLines}
	w := &lineSanitizer{w: out, tail: tail}
	cmd.Stdout, cmd.Stderr = w, w
	procgroup.Isolate(cmd)
	procgroup.KillOnCancel(cmd)
	cmd.WaitDelay = hookOutputGrace
	err = confine.Start(cmd, profile)
	if err == nil {
		err = cmd.Wait()
	}
	w.Flush()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// The hook succeeded but left a background process holding its
		// output (a server started with &): that is the hook's business.
		if out != nil {
			fmt.Fprintf(out, "  note: %s left a background process running\n", name)
		}
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return &HookError{Hook: name, Command: command, Err: err, Tail: tail.String(), Confined: profile != nil}
	}
	return nil
}

func hookCommand(ctx context.Context, command, dir string) *exec.Cmd {
	if !strings.ContainsAny(command, " \t;&|<>$`'\"\\(){}*?~") {
		p := filepath.Join(dir, filepath.FromSlash(command))
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && manifest.CheckBinaryPath(command) == "" {
			if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
				return exec.CommandContext(ctx, "sh", p)
			}
			return exec.CommandContext(ctx, p)
		}
	}
	name, args := procgroup.Shell(command)
	return exec.CommandContext(ctx, name, args...)
}

// lineSanitizer writes complete lines through termsafe, so a build cannot
// move the cursor or retitle the terminal, and keeps the last lines. Build
// output is rendered text, not something the user approves, so escape
// sequences are stripped rather than shown escaped.
type lineSanitizer struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	out  []byte // the lines of one Write, shown with one write to w
	tail *tailBuffer
}

const maxLine = 64 << 10

func (l *lineSanitizer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			if len(l.buf) > maxLine {
				l.emit(l.buf)
				l.buf = l.buf[:0]
			}
			break
		}
		l.emit(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	l.show()
	return len(p), nil
}

// emit sanitises one line into the tail and into what is shown next.
func (l *lineSanitizer) emit(line []byte) {
	s := termsafe.Line(string(line))
	l.tail.add(s)
	if l.w != nil {
		l.out = append(l.out, "  │ "...)
		l.out = append(l.out, s...)
		l.out = append(l.out, '\n')
	}
}

// show writes the lines emitted since the last show: one write per chunk
// the hook wrote, not one per line (a build printing 100,000 short lines
// made 100,000 writes).
func (l *lineSanitizer) show() {
	if len(l.out) > 0 {
		l.w.Write(l.out)
		l.out = l.out[:0]
	}
}

// Flush writes a final unterminated line.
func (l *lineSanitizer) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(l.buf)
		l.buf = nil
	}
	l.show()
}

type tailBuffer struct {
	max   int
	lines []string
}

func (t *tailBuffer) add(s string) {
	t.lines = append(t.lines, s)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *tailBuffer) String() string { return strings.Join(t.lines, "\n") }

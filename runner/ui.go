package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// ErrAborted is returned by a UI when the person at the terminal abandons a
// question (Ctrl+C, Esc). The runner treats it as a user interrupt.
var ErrAborted = errors.New("aborted by the user")

// UI is everything a run shows to or asks of a person. All strings the
// runner passes in have been through termsafe already; a UI may still add
// its own styling.
//
// The question methods are called only when Runner.Interactive is true.
// They must return promptly once ctx is done (a prompt timeout, Ctrl+C, or
// the plugin exiting), with ctx's error.
type UI interface {
	// Prompt returns the text typed; an empty answer stands for
	// q.Default, which the runner then sends in the plugin's own bytes.
	Prompt(ctx context.Context, q Question) (string, error)
	Confirm(ctx context.Context, q Question, def bool) (bool, error)
	// Select returns the index chosen. Options are shown escaped; the
	// plugin gets its own option text for the index.
	Select(ctx context.Context, q Question, options []string, def int) (int, error)
	// MultiSelect returns the indexes chosen.
	MultiSelect(ctx context.Context, q Question, options []string, defaults []int) ([]int, error)

	// Progress shows or updates the progress display, or clears it when
	// p.Done. A UI that is not drawing on a terminal ignores it.
	Progress(p Progress)
	// Pause hides any progress display because other output is about to
	// reach the terminal. The next Progress call shows it again.
	Pause()
	// Log shows a plugin's log message.
	Log(plugin string, level Level, message string)
	// Warn shows fledge's own warning about the running plugin.
	Warn(plugin, message string)
}

// Question is the text of a prompt.
type Question struct {
	// Plugin is the asking plugin's name.
	Plugin  string
	Message string
	// Default is a text prompt's default as shown (escaped): a
	// placeholder, not a pre-filled answer. Enter on an empty answer takes
	// it; typing replaces it.
	Default string
	// Validate checks a text answer as typed (an empty one stands for the
	// default); nil accepts anything.
	Validate func(string) error
}

// Progress is one update of a plugin's progress display.
type Progress struct {
	Plugin  string
	Message string
	// Determinate is true when Current and Total are known: a bar rather
	// than a spinner.
	Determinate    bool
	Current, Total float64
	Done           bool
}

// Level is a log level.
type Level string

// Log levels. Plugins' "trace" is shown as debug and unknown levels as
// info.
const (
	LevelDebug Level = "debug"
	LevelInfo  Level = "info"
	LevelWarn  Level = "warn"
	LevelError Level = "error"
)

// ParseLevel maps a plugin's level string to a Level.
func ParseLevel(s string) Level {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace", "debug":
		return LevelDebug
	case "warn", "warning":
		return LevelWarn
	case "error", "err", "fatal":
		return LevelError
	}
	return LevelInfo
}

// PlainUI renders logs and warnings as plain lines on W and shows no
// progress. It cannot ask questions: use it when no human can answer (the
// runner then never asks).
type PlainUI struct {
	mu sync.Mutex
	W  io.Writer
}

// NewPlainUI returns a PlainUI writing to w.
func NewPlainUI(w io.Writer) *PlainUI { return &PlainUI{W: w} }

var errNoTerminal = errors.New("no terminal to ask on")

// Prompt implements UI.
func (u *PlainUI) Prompt(context.Context, Question) (string, error) { return "", errNoTerminal }

// Confirm implements UI.
func (u *PlainUI) Confirm(context.Context, Question, bool) (bool, error) { return false, errNoTerminal }

// Select implements UI.
func (u *PlainUI) Select(context.Context, Question, []string, int) (int, error) {
	return 0, errNoTerminal
}

// MultiSelect implements UI.
func (u *PlainUI) MultiSelect(context.Context, Question, []string, []int) ([]int, error) {
	return nil, errNoTerminal
}

// Progress implements UI: nothing is shown off a terminal.
func (u *PlainUI) Progress(Progress) {}

// Pause implements UI.
func (u *PlainUI) Pause() {}

// Log implements UI.
func (u *PlainUI) Log(plugin string, level Level, message string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fmt.Fprint(u.W, FormatLog(plugin, level, message))
}

// Warn implements UI.
func (u *PlainUI) Warn(plugin, message string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	fmt.Fprintf(u.W, "warning: %s: %s\n", plugin, message)
}

// FormatLog renders a log message as the Rust fledge does, "  LEVEL
// [plugin] message\n" (protocol/ui.rs, handle_log), with continuation
// lines indented under the first.
func FormatLog(plugin string, level Level, message string) string {
	prefix := fmt.Sprintf("  %s [%s] ", strings.ToUpper(string(level)), plugin)
	message = strings.TrimRight(message, "\n")
	indent := "\n" + strings.Repeat(" ", len(prefix))
	return prefix + strings.ReplaceAll(message, "\n", indent) + "\n"
}

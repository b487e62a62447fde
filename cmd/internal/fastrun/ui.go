package fastrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// LogLine is how a plugin's log message shows on stderr, its level
// coloured when colour is on.
func LogLine(plugin string, level runner.Level, message string, colour bool) string {
	line := runner.FormatLog(termsafe.Escape(plugin), level, message)
	if colour {
		tag := "  " + strings.ToUpper(string(level))
		line = "  " + levelColour[level] + tag[2:] + "\x1b[0m" + strings.TrimPrefix(line, tag)
	}
	return line
}

var levelColour = map[runner.Level]string{
	runner.LevelDebug: "\x1b[90m",
	runner.LevelInfo:  "\x1b[36m",
	runner.LevelWarn:  "\x1b[33m",
	runner.LevelError: "\x1b[31m",
}

// WarnLine is how a warning about a plugin's run shows on stderr.
func WarnLine(plugin, message string, colour bool) string {
	prefix := "warning:"
	if colour {
		prefix = "\x1b[33mwarning:\x1b[0m"
	}
	return fmt.Sprintf("%s %s: %s\n", prefix, termsafe.Escape(plugin), termsafe.EscapeText(message))
}

// StoppingLine is what the user's first Ctrl+C during a run says.
func StoppingLine(command string) string {
	return fmt.Sprintf("stopping %s: Ctrl+C again kills it now\n", termsafe.Escape(command))
}

// lineUI is the runner.UI of a run with no terminal: log lines and
// warnings on stderr, as the command line's run UI writes them there, and
// no questions (a run that cannot prompt never asks its UI).
type lineUI struct {
	mu sync.Mutex
	w  io.Writer
}

var _ runner.UI = (*lineUI)(nil)

var errNoTerminal = errors.New("no terminal to ask on")

func (u *lineUI) Prompt(context.Context, runner.Question) (string, error) { return "", errNoTerminal }
func (u *lineUI) Confirm(context.Context, runner.Question, bool) (bool, error) {
	return false, errNoTerminal
}
func (u *lineUI) Select(context.Context, runner.Question, []string, int) (int, error) {
	return 0, errNoTerminal
}
func (u *lineUI) MultiSelect(context.Context, runner.Question, []string, []int) ([]int, error) {
	return nil, errNoTerminal
}
func (u *lineUI) Progress(runner.Progress) {}
func (u *lineUI) Pause()                   {}
func (u *lineUI) Log(plugin string, level runner.Level, message string) {
	u.print(LogLine(plugin, level, message, false))
}
func (u *lineUI) Warn(plugin, message string) { u.print(WarnLine(plugin, message, false)) }

func (u *lineUI) print(s string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, _ = io.WriteString(u.w, s)
}

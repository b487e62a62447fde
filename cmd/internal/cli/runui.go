package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"charm.land/huh/v2"
	"golang.org/x/term"

	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// runUI is the terminal face of a plugin run (runner.UI): questions through
// the Prompter (huh on a terminal), a progress bar or spinner on stderr
// when it is a terminal, and levelled, coloured log lines.
type runUI struct {
	io       *IOStreams
	prompter Prompter
	out      io.Writer // stderr
	draw     bool      // stderr is a terminal: progress may be drawn
	color    bool

	mu      sync.Mutex
	cur     *runner.Progress // the display wanted, nil when none
	visible bool             // it is on the screen now
	frame   int
	stop    chan struct{} // stops the spinner's ticker
}

func newRunUI(s *IOStreams, p Prompter) *runUI {
	return &runUI{io: s, prompter: p, out: s.ErrOut, draw: s.ErrTTY, color: s.ErrColorEnabled()}
}

var _ runner.UI = (*runUI)(nil)

// ask runs one question: on huh with ctx when the Prompter is the huh one
// (so a timeout or the plugin's exit withdraws it), else through the
// Prompter, abandoned when ctx ends.
func (u *runUI) ask(ctx context.Context, field func() huh.Field, viaPrompter func() error) error {
	u.Pause()
	if hp, ok := u.prompter.(*huhPrompter); ok {
		return u.runHuh(ctx, hp, field())
	}
	done := make(chan error, 1)
	go func() { done <- viaPrompter() }()
	select {
	case err := <-done:
		if errors.Is(err, errPromptAborted) {
			return runner.ErrAborted
		}
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (u *runUI) runHuh(ctx context.Context, hp *huhPrompter, field huh.Field) error {
	err := runForm(ctx, hp.s, field)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, huh.ErrUserAborted):
		return runner.ErrAborted
	}
	return fmt.Errorf("prompt: %w", err)
}

func asker(q runner.Question) string { return "asked by " + q.Plugin }

// Prompt implements runner.UI.
func (u *runUI) Prompt(ctx context.Context, q runner.Question) (string, error) {
	v := q.Default
	err := u.ask(ctx, func() huh.Field {
		return inputField(q.Message, asker(q), &v, q.Validate)
	}, func() (err error) {
		v, err = u.prompter.Input(q.Message, asker(q), q.Default, q.Validate)
		return err
	})
	return v, err
}

// Confirm implements runner.UI.
func (u *runUI) Confirm(ctx context.Context, q runner.Question, def bool) (bool, error) {
	v := def
	err := u.ask(ctx, func() huh.Field {
		return confirmField(q.Message, asker(q), &v)
	}, func() (err error) {
		v, err = u.prompter.Confirm(q.Message, asker(q), def)
		return err
	})
	return v, err
}

// Select implements runner.UI.
func (u *runUI) Select(ctx context.Context, q runner.Question, options []string, def int) (int, error) {
	v := def
	err := u.ask(ctx, func() huh.Field {
		return selectField(q.Message, asker(q), options, &v)
	}, func() (err error) {
		v, err = u.prompter.Select(q.Message, asker(q), options, def)
		return err
	})
	return v, err
}

// MultiSelect implements runner.UI.
func (u *runUI) MultiSelect(ctx context.Context, q runner.Question, options []string, defaults []int) ([]int, error) {
	var v []int
	err := u.ask(ctx, func() huh.Field {
		return multiSelectField(u.io, q.Message, asker(q), options, defaults, &v, nil)
	}, func() (err error) {
		v, err = u.prompter.MultiSelect(q.Message, asker(q), options, defaults, nil)
		return err
	})
	return v, err
}

// Progress implements runner.UI: a bar when the plugin sent current and
// total, a spinner otherwise; cleared on done. Nothing off a terminal.
func (u *runUI) Progress(p runner.Progress) {
	if !u.draw {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if p.Done {
		u.clearLocked()
		u.cur = nil
		u.stopSpinnerLocked()
		return
	}
	u.cur = &p
	if p.Determinate {
		u.stopSpinnerLocked()
	} else if u.stop == nil {
		u.stop = make(chan struct{})
		go u.spin(u.stop)
	}
	u.renderLocked()
}

// Pause implements runner.UI.
func (u *runUI) Pause() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.clearLocked()
	u.cur = nil
	u.stopSpinnerLocked()
}

func (u *runUI) spin(stop chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			u.mu.Lock()
			if u.cur != nil && !u.cur.Determinate {
				u.frame++
				u.renderLocked()
			}
			u.mu.Unlock()
		}
	}
}

func (u *runUI) stopSpinnerLocked() {
	if u.stop != nil {
		close(u.stop)
		u.stop = nil
	}
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// renderLocked draws the current display on one line, never wider than the
// terminal so that \r redraws it in place.
func (u *runUI) renderLocked() {
	p := u.cur
	if p == nil {
		return
	}
	width := u.width()
	var line string
	if p.Determinate {
		const barWidth = 24
		frac := 0.0
		if p.Total > 0 {
			frac = p.Current / p.Total
		}
		fill := int(frac * barWidth)
		bar := strings.Repeat("=", fill)
		if fill < barWidth {
			bar += ">" + strings.Repeat(" ", barWidth-fill-1)
		}
		line = fmt.Sprintf("▶ %s [%s] %s/%s", p.Message, bar, num(p.Current), num(p.Total))
	} else {
		line = spinnerFrames[u.frame%len(spinnerFrames)] + " " + p.Message
	}
	if r := []rune(line); len(r) > width-1 {
		line = string(r[:max(width-2, 1)]) + "…"
	}
	fmt.Fprint(u.out, "\r\x1b[2K"+line)
	u.visible = true
}

func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.2f", f), ".00") }

func (u *runUI) clearLocked() {
	if u.visible {
		fmt.Fprint(u.out, "\r\x1b[2K")
		u.visible = false
	}
}

func (u *runUI) width() int {
	if f, ok := u.out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 10 {
			return w
		}
	}
	return 80
}

// Log implements runner.UI.
func (u *runUI) Log(plugin string, level runner.Level, message string) {
	line := runner.FormatLog(termsafe.Escape(plugin), level, message)
	if u.color {
		tag := strings.ToUpper(string(level))
		line = levelColor[level] + fmt.Sprintf("%-5s", tag) + "\x1b[0m" + strings.TrimPrefix(line, fmt.Sprintf("%-5s", tag))
	}
	u.print(line)
}

var levelColor = map[runner.Level]string{
	runner.LevelDebug: "\x1b[90m",
	runner.LevelInfo:  "\x1b[36m",
	runner.LevelWarn:  "\x1b[33m",
	runner.LevelError: "\x1b[31m",
}

// Warn implements runner.UI.
func (u *runUI) Warn(plugin, message string) {
	prefix := "warning:"
	if u.color {
		prefix = "\x1b[33mwarning:\x1b[0m"
	}
	u.print(fmt.Sprintf("%s %s: %s\n", prefix, termsafe.Escape(plugin), termsafe.EscapeText(message)))
}

// print writes a line to stderr, lifting and restoring the progress
// display around it.
func (u *runUI) print(s string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.clearLocked()
	fmt.Fprint(u.out, s)
	if u.cur != nil {
		u.renderLocked()
	}
}

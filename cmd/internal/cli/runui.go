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

	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/spinner"
	"charm.land/lipgloss/v2"
	"golang.org/x/term"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// runUI is the terminal face of a plugin run (runner.UI): questions through
// the Prompter (huh on a terminal), each leaving its answered line; a
// progress bar or spinner on stderr when it is a terminal, with the cursor
// hidden while it shows; and levelled, coloured log lines.
type runUI struct {
	io       *IOStreams
	prompter Prompter
	out      io.Writer // stderr
	draw     bool      // stderr is a terminal: progress may be drawn
	color    bool
	// abandoned is told when the user abandons a question with Ctrl+C:
	// the terminal was in raw mode, so that Ctrl+C sent no signal.
	abandoned func()

	mu      sync.Mutex
	cur     *runner.Progress // the display wanted, nil when none
	visible bool             // it is on the screen now
	hidden  bool             // the cursor is hidden
	frame   int
	stop    chan struct{} // stops the spinner's ticker
}

func newRunUI(s *IOStreams, p Prompter) *runUI {
	return &runUI{io: s, prompter: p, out: s.ErrOut, draw: s.ErrTTY, color: s.ErrColorEnabled()}
}

var _ runner.UI = (*runUI)(nil)

// question is the Prompter's question for a plugin's.
func question(q runner.Question) Question {
	return Question{Title: q.Message, Description: "asked by " + q.Plugin, Asker: q.Plugin}
}

// asked ends a question: the display paused for it stays down until the
// next Progress, and a question the user abandoned with Ctrl+C (the
// terminal was in raw mode, so it sent no signal) is reported as one.
func (u *runUI) asked(err error) error {
	if errors.Is(err, errPromptAborted) {
		err = runner.ErrAborted
		if u.abandoned != nil {
			u.abandoned()
		}
	}
	return err
}

// Prompt implements runner.UI: q.Default is the placeholder, and an empty
// answer is returned as such (the runner maps it to the plugin's default).
func (u *runUI) Prompt(ctx context.Context, q runner.Question) (string, error) {
	u.Pause()
	v, err := u.prompter.Input(ctx, question(q), q.Default, q.Validate)
	return v, u.asked(err)
}

// Confirm implements runner.UI.
func (u *runUI) Confirm(ctx context.Context, q runner.Question, def bool) (bool, error) {
	u.Pause()
	v, err := u.prompter.Confirm(ctx, question(q), def)
	return v, u.asked(err)
}

// Select implements runner.UI.
func (u *runUI) Select(ctx context.Context, q runner.Question, options []string, def int) (int, error) {
	u.Pause()
	v, err := u.prompter.Select(ctx, question(q), options, def)
	return v, u.asked(err)
}

// MultiSelect implements runner.UI. The Prompter leaves no answered line
// for a multi-select: the chosen options are it.
func (u *runUI) MultiSelect(ctx context.Context, q runner.Question, options []string, defaults []int) ([]int, error) {
	u.Pause()
	v, err := u.prompter.MultiSelect(ctx, question(q), options, defaults, nil)
	if err == nil {
		printAnswered(u.io, q.Plugin, q.Message, pickedList(options, v))
	}
	return v, u.asked(err)
}

// Progress implements runner.UI: a bar with its percentage when the plugin
// sent current and total, a spinner otherwise; cleared on done. Nothing
// off a terminal.
func (u *runUI) Progress(p runner.Progress) {
	if !u.draw {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if p.Done {
		u.removeLocked()
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
	u.removeLocked()
}

// close takes any progress display off the screen and shows the cursor
// again, however the run ended.
func (u *runUI) close() { u.Pause() }

// removeLocked takes the display off the screen for good (until the next
// Progress) and gives the cursor back.
func (u *runUI) removeLocked() {
	u.clearLocked()
	u.cur = nil
	u.stopSpinnerLocked()
	if u.hidden {
		fmt.Fprint(u.out, showCursor)
		u.hidden = false
	}
}

// The cursor would blink over the bar's first column: it is hidden while a
// display is up.
const (
	hideCursor = "\x1b[?25l"
	showCursor = "\x1b[?25h"
)

// spinnerStyle is how indeterminate progress turns.
var spinnerStyle = spinner.MiniDot

func (u *runUI) spin(stop chan struct{}) {
	t := time.NewTicker(spinnerStyle.FPS)
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
		count := " " + num(p.Current) + "/" + num(p.Total)
		barWidth := min(40, max(12, width/3))
		room := max(width-1-barWidth-len(count)-1, 1)
		line = termsafe.Truncate(p.Message, room) + " " + u.bar(barWidth, p.Current/p.Total) + count
	} else {
		frames := spinnerStyle.Frames
		line = termsafe.Truncate(frames[u.frame%len(frames)]+" "+p.Message, width-1)
	}
	if !u.hidden {
		fmt.Fprint(u.out, hideCursor)
		u.hidden = true
	}
	fmt.Fprint(u.out, "\r\x1b[2K"+line)
	u.visible = true
}

// bar renders bubbles' progress bar at frac, with its percentage: in
// colour, or in plain block characters under NO_COLOR.
func (u *runUI) bar(width int, frac float64) string {
	opts := []progress.Option{progress.WithWidth(width), progress.WithFillCharacters('█', '░')}
	if u.color {
		opts = append(opts, progress.WithColors(lipgloss.Cyan))
	}
	m := progress.New(opts...)
	if u.color {
		m.EmptyColor = lipgloss.BrightBlack
	} else {
		m.FullColor, m.EmptyColor = lipgloss.NoColor{}, lipgloss.NoColor{}
	}
	return m.ViewAs(min(max(frac, 0), 1))
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
	u.print(fastrun.LogLine(plugin, level, message, u.color))
}

// Warn implements runner.UI.
func (u *runUI) Warn(plugin, message string) {
	u.print(fastrun.WarnLine(plugin, message, u.color))
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

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"charm.land/bubbles/v2/key"
	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"golang.org/x/term"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// Prompter asks a human. The huh implementation draws on the terminal; tests
// script a mockPrompter. Callers check IOStreams.CanPrompt first: a Prompter
// is never asked when no human can answer.
//
// Every question takes a context: when it ends (a timeout, the plugin that
// asked has exited), the question is withdrawn from the screen and its
// error returned. An answered question leaves one line on the terminal
// (see printAnswered), but for MultiSelect, whose caller records what the
// choice means. A user who abandons a question (Ctrl+C, Esc) gets
// errPromptAborted.
type Prompter interface {
	Confirm(ctx context.Context, q Question, def bool) (bool, error)
	// Select returns the index chosen.
	Select(ctx context.Context, q Question, options []string, def int) (int, error)
	// MultiSelect returns the indexes chosen. validate, when set, checks
	// a choice before it is accepted: its error is shown and the question
	// stays open.
	MultiSelect(ctx context.Context, q Question, options []string, defaults []int, validate func([]int) error) ([]int, error)
	// Input shows def as a placeholder, not a pre-filled answer, and
	// returns what was typed: "" when the user took the placeholder, for
	// the caller to read as def. validate sees what was typed.
	Input(ctx context.Context, q Question, def string, validate func(string) error) (string, error)
}

// Question is what a prompt says.
type Question struct {
	Title, Description string
	// Asker names who asks when it is not fledge (a plugin); the answered
	// line names it.
	Asker string
	// Review is what the answer approves, one item a line, shown whole
	// (escaped by the caller, never cut): the caller prints it above the
	// question, and where the screen is too short to keep it in view the
	// form shows it again after the choice, on pages of its own, before
	// the answer is confirmed (see reviewPages).
	Review []string
}

// errPromptAborted is returned when the user abandons a prompt (Ctrl+C, Esc).
var errPromptAborted = errors.New("prompt aborted")

type huhPrompter struct{ s *IOStreams }

func newHuhPrompter(s *IOStreams) Prompter { return &huhPrompter{s: s} }

// runForm asks one question in the one kind of form fledge uses: on the
// prompt terminal only, with colours chosen without asking the terminal
// anything (huh v2 and Bubble Tea v2 query no colours unless told to; v1
// queried the background colour at start-up in every fledge process, and
// waited five seconds for a terminal that never answered).
// Pages, when given, come after the question, one screen each: the last
// Enter confirms the answer.
func runForm(ctx context.Context, s *IOStreams, field huh.Field, pages ...*huh.Group) error {
	if s.TTYIn == nil || s.TTYOut == nil {
		// Never fall back to huh's own /dev/tty or piped-stdin handling.
		return errors.New("no terminal to prompt on")
	}
	dark := darkBackground(s.getenv("COLORFGBG"))
	in := &formInput{f: s.TTYIn}
	defer in.over.Store(true)
	accessible := s.accessible()
	form := huh.NewForm(append([]*huh.Group{huh.NewGroup(field)}, pages...)...).
		WithInput(in).
		WithOutput(s.TTYOut).
		WithShowHelp(true).
		WithTheme(huh.ThemeFunc(func(bool) *huh.Styles { return huh.ThemeCharm(dark) })).
		WithAccessible(accessible).
		WithKeyMap(formKeys())
	if err := runFormContext(ctx, form, accessible, s.TTYOut); err != nil {
		if ctx.Err() != nil && !accessible {
			eraseForm(s.TTYOut, lipgloss.Height(form.View()))
		}
		return err
	}
	// Bubble Tea ends a form on SIGTERM as if it were submitted: only an
	// answer the user gave counts (the accessible mode keeps no state).
	if !accessible && form.State != huh.StateCompleted {
		eraseForm(s.TTYOut, lipgloss.Height(form.View()))
		return huh.ErrUserAborted
	}
	return nil
}

// runFormContext runs form until it is answered or ctx ends. huh's
// accessible mode reads whole lines and never looks at ctx, so a Ctrl+C
// (a signal there: the terminal is not in raw mode) would leave the
// question waiting for Enter, or for an answer that installs: the
// question is given up at once instead, and the read it leaves pending
// is handed nothing more (see formInput).
func runFormContext(ctx context.Context, form *huh.Form, accessible bool, out io.Writer) error {
	if !accessible {
		return form.RunWithContext(ctx)
	}
	done := make(chan error, 1)
	go func() { done <- form.RunWithContext(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		fmt.Fprintln(out) // end the line the question left open
		return ctx.Err()
	}
}

// formKeys is huh's key map with Esc abandoning a question as Ctrl+C does
// (huh binds quit to Ctrl+C alone): every question says "Esc cancels".
// A filter being typed in a list is abandoned with the question.
func formKeys() *huh.KeyMap {
	km := huh.NewDefaultKeyMap()
	km.Quit = key.NewBinding(key.WithKeys("ctrl+c", "esc"), key.WithHelp("esc", "cancel"))
	return km
}

// eraseForm takes a form that was not answered (withdrawn at a timeout or
// the plugin's exit, or ended by SIGTERM) off the screen: Bubble Tea
// leaves its last frame there, with the cursor at the start of its last
// line.
func eraseForm(w io.Writer, height int) {
	if height > 1 {
		fmt.Fprintf(w, "\x1b[%dA", height-1)
	}
	fmt.Fprint(w, "\r\x1b[J")
}

// accessible reports whether questions are asked in huh's accessible mode
// (plain lines, for screen readers).
func (s *IOStreams) accessible() bool { return s.getenv("ACCESSIBLE") != "" }

// formInput is the terminal as one form reads it. Bubble Tea v2 reads keys
// in a goroutine that can outlive its program (ultraviolet's StreamEvents
// returns when the program ends without waiting for it), and that straggler
// would swallow the first key typed at the next question. Once its form is
// over, a formInput reads nothing and leaves the key to the form asking.
type formInput struct {
	f    *os.File
	over atomic.Bool
}

func (i *formInput) Read(p []byte) (int, error) {
	if i.over.Load() {
		return 0, io.EOF
	}
	return i.f.Read(p)
}

func (i *formInput) Write(p []byte) (int, error) { return i.f.Write(p) }
func (i *formInput) Close() error                { return nil } // the terminal stays open
func (i *formInput) Fd() uintptr                 { return i.f.Fd() }
func (i *formInput) Name() string                { return i.f.Name() }

// darkBackground guesses the terminal's background from COLORFGBG
// ("fg;bg", set by rxvt, Konsole and others) and otherwise assumes dark,
// as most terminals are: asking the terminal is what fledge must not do.
func darkBackground(colorfgbg string) bool {
	i := strings.LastIndexByte(colorfgbg, ';')
	if i < 0 {
		return true
	}
	bg, err := strconv.Atoi(colorfgbg[i+1:])
	if err != nil {
		return true
	}
	return bg != 7 && bg < 9 // 7 and 9-15 are the light ANSI colours
}

// ask runs one question's form: built once, here, for every caller.
// huh's accessible mode prints no description, and a description carries
// warnings (an unverified source, hooks that must run): printed here.
func (p *huhPrompter) ask(ctx context.Context, q Question, field huh.Field, pages ...*huh.Group) error {
	if p.s.accessible() && q.Description != "" && p.s.TTYOut != nil {
		fmt.Fprintln(p.s.TTYOut, q.Description)
	}
	err := runForm(ctx, p.s, field, pages...)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, huh.ErrUserAborted), errors.Is(err, huh.ErrTimeout):
		return errPromptAborted
	}
	return fmt.Errorf("prompt: %w", err)
}

func (p *huhPrompter) Confirm(ctx context.Context, q Question, def bool) (bool, error) {
	v := def
	err := p.ask(ctx, q, huh.NewConfirm().Title(q.Title).Description(q.Description).Value(&v))
	if err == nil {
		printAnswered(p.s, q.Asker, q.Title, yesNo(v))
	}
	return v, err
}

func (p *huhPrompter) Select(ctx context.Context, q Question, options []string, def int) (int, error) {
	opts := make([]huh.Option[int], len(options))
	for i, o := range options {
		opts[i] = huh.NewOption(o, i)
	}
	v := def
	err := p.ask(ctx, q, huh.NewSelect[int]().Title(q.Title).Description(q.Description).Options(opts...).Value(&v))
	if err == nil && v >= 0 && v < len(options) {
		printAnswered(p.s, q.Asker, q.Title, options[v])
	}
	return v, err
}

// MultiSelect shows every option when the prompt opens, the unselected
// ones too (they are what will be denied). huh v2 sizes a multi-select
// without a height to its options minus the title and description lines,
// hiding the last ones; an explicit height that counts those lines cancels
// that out (the form still shrinks it to the terminal).
func (p *huhPrompter) MultiSelect(ctx context.Context, q Question, options []string, defaults []int, validate func([]int) error) ([]int, error) {
	opts := make([]huh.Option[int], len(options))
	sel := map[int]bool{}
	for _, d := range defaults {
		sel[d] = true
	}
	width, rows := 80, 0
	if p.s.TTYOut != nil {
		if w, h, err := term.GetSize(int(p.s.TTYOut.Fd())); err == nil && w > 20 {
			width, rows = w, h
		}
	}
	for i, o := range options {
		// Each option on one line: cut at a word, with "…", where huh
		// would cut it mid-word (its cursor and box take 6 columns).
		opts[i] = huh.NewOption(fitLine(o, width-6), i).Selected(sel[i])
	}
	height := len(options) + textLines(q.Title, width) + textLines(q.Description, width)
	var pages []*huh.Group
	if rows > 0 && !p.s.accessible() && reviewLines(q.Review, width)+height+formAround > rows {
		pages = reviewPages(q.Review, width, rows)
	}
	if rows > 0 {
		// No taller than the screen, less the lines below it (a blank,
		// a validation message of up to two lines, the help line): a field
		// taller than what the form can show moves its cursor to options
		// never drawn and pushes its title off the top; one that fits
		// scrolls its list to the cursor.
		height = min(height, max(rows-4, textLines(q.Title, width)+textLines(q.Description, width)+1))
	}
	var picked []int
	ms := huh.NewMultiSelect[int]().Title(q.Title).Description(q.Description).Options(opts...).Value(&picked).Height(height)
	if validate != nil {
		ms = ms.Validate(validate)
	}
	err := p.ask(ctx, q, ms, pages...)
	return picked, err
}

// formAround is the lines a question needs on screen besides its field:
// the lines its caller printed above the review (a blank and what is
// asked about, two or three), the review's own title, and below the field
// a blank and the help line.
const formAround = 7

// reviewPages shows review whole where the lines printed above a question
// would scroll out of view: on pages after the choice, each no taller than
// the screen, each line wrapped (never cut) to the screen's width. Enter
// turns a page and, on the last, confirms the answer; Shift+Tab turns back
// (to the choice from the first). They come after the choice, not before:
// huh validates a field as it is entered and left, which would show a
// choice's error before it was made and keep the user from going back.
func reviewPages(review []string, width, rows int) []*huh.Group {
	cols := max(width-6, 10) // the note's border and padding
	per := max(rows-6, 1)    // its title, a blank, the button, a blank, the help line
	var lines []string
	for _, l := range review {
		lines = append(lines, hardWrap(l, cols)...)
	}
	n := (len(lines) + per - 1) / per
	var pages []*huh.Group
	for i := 0; i < len(lines); i += per {
		title, next := "Read before confirming", "Confirm"
		if n > 1 {
			title += fmt.Sprintf(" (%d/%d)", len(pages)+1, n)
		}
		if len(pages) < n-1 {
			next = "Next"
		}
		body := strings.Join(lines[i:min(i+per, len(lines))], "\n")
		pages = append(pages, huh.NewGroup(huh.NewNote().Title(title).Description(noteText(body)).Next(true).NextLabel(next)))
	}
	return pages
}

// reviewLines is how many lines review takes on its pages.
func reviewLines(review []string, width int) int {
	n := 0
	for _, l := range review {
		n += len(hardWrap(l, max(width-6, 10)))
	}
	return n
}

// wrapMark ends a line that hardWrap broke: the command goes on on the
// next line, and a space just before the break stays visible before it.
const wrapMark = "↵"

// hardWrap breaks s into lines of at most cols columns, keeping every
// character (a space at a break too): what is shown is what runs. Each line
// but the last ends with wrapMark, so a reader sees where the text was
// broken and whether a space stands there ("/tmp/x ↵" and "/tmp/x↵" differ).
func hardWrap(s string, cols int) []string {
	limit := max(cols-termsafe.Width(wrapMark), 1)
	var lines []string
	var cur strings.Builder
	w := 0
	for _, r := range s {
		rw := termsafe.Width(string(r))
		if w+rw > limit && w > 0 {
			lines = append(lines, cur.String()+wrapMark)
			cur.Reset()
			w = 0
		}
		cur.WriteRune(r)
		w += rw
	}
	return append(lines, cur.String())
}

// noteText is text a huh note shows as it is: a note reads *, _ and `
// as markup and \ as an escape.
func noteText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\*_`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Input: the accessible mode shows no placeholder, so the title names the
// default there.
func (p *huhPrompter) Input(ctx context.Context, q Question, def string, validate func(string) error) (string, error) {
	title := q.Title
	if def != "" && p.s.accessible() {
		title += " [" + def + "]"
	}
	placeholder := def
	if def != "" && !p.s.ErrColorEnabled() {
		// Without colour a placeholder looks like typed text: say what it is.
		placeholder = "default: " + def
	}
	var v string
	in := huh.NewInput().Title(title).Description(q.Description).Placeholder(placeholder).Value(&v)
	if validate != nil {
		in = in.Validate(validate)
	}
	err := p.ask(ctx, q, in)
	if err == nil {
		shown := def
		if v != "" {
			shown = termsafe.Escape(v)
		}
		printAnswered(p.s, q.Asker, q.Title, shown)
	}
	return v, err
}

// fitLine cuts s to width columns, at the last space if one is in its
// second half, marking the cut with "…".
func fitLine(s string, width int) string {
	if width < 10 || termsafe.Width(s) <= width {
		return s
	}
	cut := strings.TrimSuffix(termsafe.Truncate(s, width), "…")
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = strings.TrimRight(cut[:i], " ")
	}
	return cut + "…"
}

// textLines is how many lines text takes in a field on a terminal width
// columns wide, erring high (the field's border and padding, and word
// wrapping, take a few columns): a line too many is a blank line, one too
// few would hide an option.
func textLines(text string, width int) int {
	if text == "" {
		return 0
	}
	cols := max(width-6, 10)
	n := 0
	for _, line := range strings.Split(text, "\n") {
		n += max(1, (lipgloss.Width(line)+cols-1)/cols)
	}
	return n
}

// printAnswered leaves the one line an answered question leaves on the
// terminal, as dialoguer and gh do once a prompt closes:
//
//	? What's your name? Ada
//	? [fledge-plugin-hello] What's your name? Ada
//
// asker, when set, names who asked (a plugin), as the plugin's log lines
// do. question and answer are shown on one line; pass them escaped where
// what they say matters (termsafe.Escape), since anything a terminal would
// obey is dropped here. Nothing is printed without a prompt terminal.
func printAnswered(s *IOStreams, asker, question, answer string) {
	if s.TTYOut == nil {
		return
	}
	question = strings.TrimSpace(termsafe.Line(question))
	answer = termsafe.Line(answer)
	if asker != "" {
		asker = "[" + termsafe.Line(asker) + "] "
	}
	if s.ErrColorEnabled() {
		fmt.Fprintf(s.TTYOut, "\x1b[32m?\x1b[0m \x1b[2m%s\x1b[0m\x1b[1m%s\x1b[0m \x1b[36m%s\x1b[0m\n", asker, question, answer)
		return
	}
	fmt.Fprintf(s.TTYOut, "? %s%s %s\n", asker, question, answer)
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// pickedList is a multi-select's answer on one line.
func pickedList(options []string, picked []int) string {
	var names []string
	for _, i := range picked {
		if i >= 0 && i < len(options) {
			names = append(names, options[i])
		}
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

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

	"charm.land/huh/v2"
	"charm.land/lipgloss/v2"
	"golang.org/x/term"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// Prompter asks a human. The huh implementation draws on the terminal; tests
// use a scripted fake. Callers check IOStreams.CanPrompt first: a Prompter
// is never asked when no human can answer.
type Prompter interface {
	Confirm(title, description string, def bool) (bool, error)
	// MultiSelect returns the indexes chosen. validate, when set, checks
	// a choice before it is accepted: its error is shown and the question
	// stays open.
	MultiSelect(title, description string, options []string, defaults []int, validate func([]int) error) ([]int, error)
	// Select returns the index chosen.
	Select(title, description string, options []string, def int) (int, error)
	Input(title, description, def string, validate func(string) error) (string, error)
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
func runForm(ctx context.Context, s *IOStreams, field huh.Field) error {
	if s.TTYIn == nil || s.TTYOut == nil {
		// Never fall back to huh's own /dev/tty or piped-stdin handling.
		return errors.New("no terminal to prompt on")
	}
	dark := darkBackground(s.getenv("COLORFGBG"))
	in := &formInput{f: s.TTYIn}
	defer in.over.Store(true)
	accessible := s.accessible()
	form := huh.NewForm(huh.NewGroup(field)).
		WithInput(in).
		WithOutput(s.TTYOut).
		WithShowHelp(true).
		WithTheme(huh.ThemeFunc(func(bool) *huh.Styles { return huh.ThemeCharm(dark) })).
		WithAccessible(accessible)
	if err := form.RunWithContext(ctx); err != nil {
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

func (p *huhPrompter) run(field huh.Field) error {
	if err := runForm(context.Background(), p.s, field); err != nil {
		if errors.Is(err, huh.ErrUserAborted) || errors.Is(err, huh.ErrTimeout) {
			return errPromptAborted
		}
		return fmt.Errorf("prompt: %w", err)
	}
	return nil
}

func (p *huhPrompter) Confirm(title, description string, def bool) (bool, error) {
	v := def
	err := p.run(confirmField(title, description, &v))
	if err == nil {
		printAnswered(p.s, "", title, yesNo(v))
	}
	return v, err
}

// MultiSelect leaves no answered line: what the choice means (what was
// granted, say) is the caller's to record, with printAnswered.
func (p *huhPrompter) MultiSelect(title, description string, options []string, defaults []int, validate func([]int) error) ([]int, error) {
	var picked []int
	err := p.run(multiSelectField(p.s, title, description, options, defaults, &picked, validate))
	return picked, err
}

func (p *huhPrompter) Select(title, description string, options []string, def int) (int, error) {
	v := def
	err := p.run(selectField(title, description, options, &v))
	if err == nil && v >= 0 && v < len(options) {
		printAnswered(p.s, "", title, options[v])
	}
	return v, err
}

// Input shows def as a placeholder: Enter takes it, typing replaces it,
// and validate sees the answer that will be used.
func (p *huhPrompter) Input(title, description, def string, validate func(string) error) (string, error) {
	var v string
	effective := func(answer string) string {
		if answer == "" {
			return def
		}
		return answer
	}
	var check func(string) error
	if validate != nil {
		check = func(answer string) error { return validate(effective(answer)) }
	}
	err := p.run(inputField(p.s, title, description, def, &v, check))
	v = effective(v)
	if err == nil {
		printAnswered(p.s, "", title, termsafe.Escape(v))
	}
	return v, err
}

// The fields of every question, for the Prompter and for plugins' questions
// (runUI) alike.

func confirmField(title, description string, v *bool) huh.Field {
	return huh.NewConfirm().Title(title).Description(description).Value(v)
}

// inputField asks for text with def as a placeholder, not a pre-filled
// answer (an empty answer stands for it; the caller maps it, and its
// validate sees the empty answer). The accessible mode shows no
// placeholder, so the title names the default there.
func inputField(s *IOStreams, title, description, def string, v *string, validate func(string) error) huh.Field {
	if def != "" && s.accessible() {
		title += " [" + def + "]"
	}
	in := huh.NewInput().Title(title).Description(description).Placeholder(def).Value(v)
	if validate != nil {
		in = in.Validate(validate)
	}
	return in
}

func selectField(title, description string, options []string, v *int) huh.Field {
	opts := make([]huh.Option[int], len(options))
	for i, o := range options {
		opts[i] = huh.NewOption(o, i)
	}
	return huh.NewSelect[int]().Title(title).Description(description).Options(opts...).Value(v)
}

// multiSelectField shows every option when the prompt opens, the
// unselected ones too (they are what will be denied). huh v2 sizes a
// multi-select without a height to its options minus the title and
// description lines, hiding the last ones; an explicit height that counts
// those lines cancels that out (the form still shrinks it to the terminal).
func multiSelectField(s *IOStreams, title, description string, options []string, defaults []int, v *[]int, validate func([]int) error) huh.Field {
	opts := make([]huh.Option[int], len(options))
	sel := map[int]bool{}
	for _, d := range defaults {
		sel[d] = true
	}
	for i, o := range options {
		opts[i] = huh.NewOption(o, i).Selected(sel[i])
	}
	width := 80
	if s.TTYOut != nil {
		if w, _, err := term.GetSize(int(s.TTYOut.Fd())); err == nil && w > 20 {
			width = w
		}
	}
	height := len(options) + textLines(title, width) + textLines(description, width)
	ms := huh.NewMultiSelect[int]().Title(title).Description(description).Options(opts...).Value(v).Height(height)
	if validate != nil {
		ms = ms.Validate(validate)
	}
	return ms
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

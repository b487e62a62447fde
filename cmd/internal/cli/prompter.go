package cli

import (
	"errors"
	"fmt"

	"github.com/charmbracelet/huh"
)

// Prompter asks a human. The huh implementation draws on the terminal; tests
// use a scripted fake. Callers check IOStreams.CanPrompt first: a Prompter
// is never asked when no human can answer.
type Prompter interface {
	Confirm(title, description string, def bool) (bool, error)
	// MultiSelect returns the indexes chosen.
	MultiSelect(title, description string, options []string, defaults []int) ([]int, error)
	// Select returns the index chosen.
	Select(title, description string, options []string, def int) (int, error)
	Input(title, description, def string, validate func(string) error) (string, error)
}

// errPromptAborted is returned when the user abandons a prompt (Ctrl+C, Esc).
var errPromptAborted = errors.New("prompt aborted")

type huhPrompter struct{ s *IOStreams }

func newHuhPrompter(s *IOStreams) Prompter { return &huhPrompter{s: s} }

func (p *huhPrompter) run(field huh.Field) error {
	if p.s.TTYIn == nil || p.s.TTYOut == nil {
		// Never fall back to huh's own /dev/tty or piped-stdin handling.
		return errors.New("no terminal to prompt on")
	}
	form := huh.NewForm(huh.NewGroup(field)).
		WithInput(p.s.TTYIn).
		WithOutput(p.s.TTYOut).
		WithShowHelp(true).
		WithAccessible(p.s.getenv("ACCESSIBLE") != "")
	if err := form.Run(); err != nil {
		if errors.Is(err, huh.ErrUserAborted) || errors.Is(err, huh.ErrTimeout) {
			return errPromptAborted
		}
		return fmt.Errorf("prompt: %w", err)
	}
	return nil
}

func (p *huhPrompter) Confirm(title, description string, def bool) (bool, error) {
	v := def
	err := p.run(huh.NewConfirm().Title(title).Description(description).Value(&v))
	return v, err
}

func (p *huhPrompter) MultiSelect(title, description string, options []string, defaults []int) ([]int, error) {
	opts := make([]huh.Option[int], len(options))
	sel := map[int]bool{}
	for _, d := range defaults {
		sel[d] = true
	}
	for i, o := range options {
		opts[i] = huh.NewOption(o, i).Selected(sel[i])
	}
	var picked []int
	err := p.run(huh.NewMultiSelect[int]().Title(title).Description(description).Options(opts...).Value(&picked))
	return picked, err
}

func (p *huhPrompter) Select(title, description string, options []string, def int) (int, error) {
	opts := make([]huh.Option[int], len(options))
	for i, o := range options {
		opts[i] = huh.NewOption(o, i)
	}
	v := def
	err := p.run(huh.NewSelect[int]().Title(title).Description(description).Options(opts...).Value(&v))
	return v, err
}

func (p *huhPrompter) Input(title, description, def string, validate func(string) error) (string, error) {
	v := def
	in := huh.NewInput().Title(title).Description(description).Value(&v)
	if validate != nil {
		in = in.Validate(validate)
	}
	err := p.run(in)
	return v, err
}

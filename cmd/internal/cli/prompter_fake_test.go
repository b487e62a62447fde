package cli

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// fakePrompter answers prompts from a script, in order. A prompt that is
// not the next one scripted, or a scripted prompt never asked, fails the
// test (as gh's MockPrompter does).
type fakePrompter struct {
	t     *testing.T
	mu    sync.Mutex
	steps []promptStep
	asked []string
}

// promptStep is one expected prompt: its kind, a substring of its title,
// and the answer (a bool, an int, []int or a string), or an error.
type promptStep struct {
	kind   string
	title  string
	answer any
	err    error
}

func newFakePrompter(t *testing.T, steps ...promptStep) *fakePrompter {
	t.Helper()
	p := &fakePrompter{t: t, steps: steps}
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.steps) > 0 {
			t.Errorf("prompts scripted but never asked: %+v (asked: %q)", p.steps, p.asked)
		}
	})
	return p
}

func (p *fakePrompter) next(kind, title string, options []string) (any, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, kind+": "+title+" "+strings.Join(options, " | "))
	if len(p.steps) == 0 {
		p.t.Errorf("unexpected %s prompt %q", kind, title)
		return nil, errPromptAborted
	}
	s := p.steps[0]
	p.steps = p.steps[1:]
	if s.kind != kind || !strings.Contains(title, s.title) {
		p.t.Errorf("prompt %s %q, want %s containing %q", kind, title, s.kind, s.title)
		return nil, errPromptAborted
	}
	return s.answer, s.err
}

func (p *fakePrompter) Confirm(title, description string, def bool) (bool, error) {
	a, err := p.next("confirm", title, nil)
	b, _ := a.(bool)
	return b, err
}

func (p *fakePrompter) MultiSelect(title, description string, options []string, defaults []int, validate func([]int) error) ([]int, error) {
	a, err := p.next("multiselect", title, options)
	v, _ := a.([]int)
	if err == nil && validate != nil {
		if verr := validate(v); verr != nil {
			return nil, fmt.Errorf("scripted answer %v rejected: %w", v, verr)
		}
	}
	return v, err
}

func (p *fakePrompter) Select(title, description string, options []string, def int) (int, error) {
	a, err := p.next("select", title, options)
	v, _ := a.(int)
	return v, err
}

func (p *fakePrompter) Input(title, description, def string, validate func(string) error) (string, error) {
	a, err := p.next("input", title, nil)
	if a == nil && err == nil {
		return def, nil // answered by accepting the default
	}
	v, _ := a.(string)
	if err == nil && validate != nil {
		if verr := validate(v); verr != nil {
			return "", fmt.Errorf("scripted answer %q rejected: %w", v, verr)
		}
	}
	return v, err
}

// terminal makes s look like a terminal a human answers on: prompts go to
// the fake prompter, never to this file.
func terminal(t *testing.T, s *IOStreams) {
	t.Helper()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s.InTTY, s.ErrTTY, s.TTYIn, s.TTYOut = true, true, f, f
}

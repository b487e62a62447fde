package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// mockPrompter answers prompts from a script, in order, as gh's
// MockPrompter does: a prompt that is not the next one scripted, or a
// scripted prompt never asked, fails the test.
type mockPrompter struct {
	t     *testing.T
	mu    sync.Mutex
	steps []promptStep
	asked []string
}

// promptStep is one expected prompt: its kind ("confirm", "select",
// "multiselect" or "input"), a substring of its title, who asks (a
// plugin's name; "" for fledge itself), and the answer (a bool, an int,
// []int or a string; for input, nil takes the placeholder) or an error.
// withdrawn waits for the question's context to end, as a person who never
// answers, and returns its error.
type promptStep struct {
	kind      string
	title     string
	asker     string
	answer    any
	err       error
	withdrawn bool
}

func newMockPrompter(t *testing.T, steps ...promptStep) *mockPrompter {
	t.Helper()
	p := &mockPrompter{t: t, steps: steps}
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.steps) > 0 {
			t.Errorf("prompts scripted but never asked: %+v (asked: %q)", p.steps, p.asked)
		}
	})
	return p
}

func (p *mockPrompter) next(ctx context.Context, kind string, q Question, options []string) (any, error) {
	p.mu.Lock()
	p.asked = append(p.asked, kind+": "+q.Title+" "+strings.Join(options, " | "))
	if len(p.steps) == 0 {
		p.mu.Unlock()
		p.t.Errorf("unexpected %s prompt %q", kind, q.Title)
		return nil, errPromptAborted
	}
	s := p.steps[0]
	p.steps = p.steps[1:]
	p.mu.Unlock()
	if s.kind != kind || !strings.Contains(q.Title, s.title) || s.asker != q.Asker {
		p.t.Errorf("prompt %s %q asked by %q, want %s containing %q asked by %q", kind, q.Title, q.Asker, s.kind, s.title, s.asker)
		return nil, errPromptAborted
	}
	if s.withdrawn {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		p.t.Errorf("prompt %q asked with its context already done: %v", q.Title, err)
		return nil, err
	}
	return s.answer, s.err
}

func (p *mockPrompter) Confirm(ctx context.Context, q Question, def bool) (bool, error) {
	a, err := p.next(ctx, "confirm", q, nil)
	b, _ := a.(bool)
	return b, err
}

func (p *mockPrompter) Select(ctx context.Context, q Question, options []string, def int) (int, error) {
	a, err := p.next(ctx, "select", q, options)
	v, _ := a.(int)
	return v, err
}

func (p *mockPrompter) MultiSelect(ctx context.Context, q Question, options []string, defaults []int, validate func([]int) error) ([]int, error) {
	a, err := p.next(ctx, "multiselect", q, options)
	v, _ := a.([]int)
	if err == nil && validate != nil {
		if verr := validate(v); verr != nil {
			return nil, fmt.Errorf("scripted answer %v rejected: %w", v, verr)
		}
	}
	return v, err
}

func (p *mockPrompter) Input(ctx context.Context, q Question, def string, validate func(string) error) (string, error) {
	a, err := p.next(ctx, "input", q, nil)
	v, _ := a.(string) // nil: the placeholder taken, ""
	if err == nil && validate != nil {
		if verr := validate(v); verr != nil {
			return "", fmt.Errorf("scripted answer %q rejected: %w", v, verr)
		}
	}
	return v, err
}

// terminal makes s look like a terminal a human answers on: prompts go to
// the mock prompter, never to this file.
func terminal(t *testing.T, s *IOStreams) {
	t.Helper()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s.InTTY, s.ErrTTY, s.TTYIn, s.TTYOut = true, true, f, f
}

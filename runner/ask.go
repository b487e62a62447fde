package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/corvidlabs/fledge-go/protocol"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// ask runs one question. Off a terminal (or under --ni) the question is
// answered with its default, or cancelled with reason non_interactive when
// it has none. On a terminal it waits at most Timeouts.Prompt (then cancel,
// reason timeout). Once the run is interrupted, questions are cancelled
// without being asked.
func (s *session) ask(id json.RawMessage, kind, message string, def any, hasDef bool, question func(context.Context) (any, error)) {
	if s.ctx.Err() != nil {
		s.cancelRequest(id, s.reason())
		return
	}
	if !s.r.Interactive || s.req.NonInteractive {
		if hasDef {
			s.respond(id, def)
			return
		}
		s.warnOnce("ni:"+kind+":"+message, fmt.Sprintf("cannot ask %s without a terminal and it has no default: cancelled", quote(message)))
		s.cancelRequest(id, protocol.ReasonNonInteractive)
		return
	}
	s.flush()
	if s.progress != nil {
		s.r.UI.Pause()
	}
	ctx, cancel := context.WithTimeout(s.live, s.r.Timeouts.Prompt)
	v, err := question(ctx)
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded) && s.live.Err() == nil
	cancel()
	switch {
	case err == nil:
		s.respond(id, v)
	case timedOut:
		s.r.UI.Warn(s.name, fmt.Sprintf("no answer to %s within %s: cancelled", quote(message), s.r.Timeouts.Prompt))
		s.cancelRequest(id, protocol.ReasonTimeout)
	case s.ctx.Err() != nil:
		s.cancelRequest(id, s.reason())
	case s.live.Err() != nil:
		s.cancelRequest(id, protocol.ReasonUserInterrupt) // the plugin is gone; nobody reads this
	case errors.Is(err, ErrAborted):
		// Ctrl+C inside a question: the terminal was in raw mode, so this
		// is the user's interrupt. Stop the whole run the usual way.
		// The question's own cancel goes first, then the run's.
		s.cancelRequest(id, protocol.ReasonUserInterrupt)
		s.cancel(ErrAborted)
	default:
		s.r.UI.Warn(s.name, fmt.Sprintf("cannot ask %s: %s", quote(message), termsafe.EscapeText(err.Error())))
		s.cancelRequest(id, protocol.ReasonNonInteractive)
	}
	if s.progress != nil {
		s.r.UI.Progress(*s.progress)
	}
}

func (s *session) question(m string) Question {
	return Question{Plugin: s.name, Message: termsafe.Text(m)}
}

// prompt asks for text. Its default must pass the validator to be used off
// a terminal. On one, the default is shown escaped, and an empty answer
// takes it: the plugin gets back exactly the default it sent, which is
// what the validator checks too.
func (s *session) prompt(m *protocol.Outbound) {
	q := s.question(m.Message)
	validate, known := Validator(m.Validate, s.cwd)
	if !known {
		s.warnOnce("validator:"+m.Validate, fmt.Sprintf("unknown validator %s ignored", quote(m.Validate)))
	}
	def, hasDef := stringDefault(m.Default)
	if hasDef && validate != nil && validate(def) != nil && (!s.r.Interactive || s.req.NonInteractive) {
		s.warnOnce("invalid-default:"+m.Message, fmt.Sprintf("the default of %s does not pass its %s check", quote(m.Message), m.Validate))
		hasDef = false
	}
	effective := func(answer string) string {
		if answer == "" && hasDef {
			return def
		}
		return answer
	}
	if validate != nil {
		q.Validate = func(answer string) error { return validate(effective(answer)) }
	}
	if hasDef {
		q.Default = termsafe.Escape(def)
	}
	s.ask(m.ID, m.Type, m.Message, def, hasDef, func(ctx context.Context) (any, error) {
		answer, err := s.r.UI.Prompt(ctx, q)
		return effective(answer), err
	})
}

// confirm asks yes or no.
func (s *session) confirm(m *protocol.Outbound) {
	var def bool
	var hasDef bool
	switch string(m.Default) {
	case "true", "false": // the usual defaults, without the decoder
		def, hasDef = string(m.Default) == "true", true
	default:
		hasDef = len(m.Default) > 0 && json.Unmarshal(m.Default, &def) == nil
	}
	s.ask(m.ID, m.Type, m.Message, def, hasDef, func(ctx context.Context) (any, error) {
		return s.r.UI.Confirm(ctx, s.question(m.Message), def)
	})
}

// choose asks for one of the options and answers with the option's text.
func (s *session) choose(m *protocol.Outbound) {
	if len(m.Options) == 0 {
		s.malformed("a select without options (cancelled)")
		s.cancelRequest(m.ID, protocol.ReasonInvalidRequest)
		return
	}
	opts := cleanOptions(m.Options)
	def, hasDef := indexDefault(m.Default, m.Options)
	var defVal any
	if hasDef {
		defVal = m.Options[def]
	}
	s.ask(m.ID, m.Type, m.Message, defVal, hasDef, func(ctx context.Context) (any, error) {
		i, err := s.r.UI.Select(ctx, s.question(m.Message), opts, max(def, 0))
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= len(m.Options) {
			return nil, fmt.Errorf("choice %d out of range", i)
		}
		return m.Options[i], nil
	})
}

// chooseMany asks for any of the options and answers with their texts.
func (s *session) chooseMany(m *protocol.Outbound) {
	opts := cleanOptions(m.Options)
	var defs []int
	for _, d := range m.Defaults {
		if d >= 0 && d < len(m.Options) {
			defs = append(defs, d)
		}
	}
	pick := func(idx []int) []string {
		out := []string{}
		seen := map[int]bool{}
		for _, i := range idx {
			if i >= 0 && i < len(m.Options) && !seen[i] {
				seen[i] = true
				out = append(out, m.Options[i])
			}
		}
		return out
	}
	hasDef := m.Defaults != nil
	s.ask(m.ID, m.Type, m.Message, pick(defs), hasDef, func(ctx context.Context) (any, error) {
		idx, err := s.r.UI.MultiSelect(ctx, s.question(m.Message), opts, defs)
		if err != nil {
			return nil, err
		}
		return pick(idx), nil
	})
}

// cleanOptions is how options are shown: escaped, on one line, nothing
// hidden or dropped. The answer is the plugin's own option, byte for byte.
func cleanOptions(opts []string) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = termsafe.Escape(o)
	}
	return out
}

// stringDefault reads a prompt default: a string, or a number or bool
// taken as its text.
func stringDefault(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return strconv.FormatBool(b), true
	}
	return "", false
}

// indexDefault reads a select default: an index, or an option's text.
func indexDefault(raw json.RawMessage, opts []string) (int, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return -1, false
	}
	var i int
	if json.Unmarshal(raw, &i) == nil {
		if i >= 0 && i < len(opts) {
			return i, true
		}
		return -1, false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		for j, o := range opts {
			if o == s {
				return j, true
			}
		}
	}
	return -1, false
}

package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/corvidlabs/fledge-go/manifest"
	"github.com/corvidlabs/fledge-go/protocol"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// loop reads the plugin's messages until its stdout ends (or is given up
// on) or the plugin breaks the protocol.
func (s *session) loop() {
	// Off a terminal, output is written verbatim, so the output messages
	// of a flood are decoded a buffer at a time and written in one piece.
	batch := !s.r.StdoutTTY
	for s.fatal == nil {
		if batch && s.lines.buffered() {
			if b, n := s.lines.outputs(s.scratch[:0]); n > 0 {
				s.scratch = b
				s.outputBytes(b)
				continue
			}
		}
		if !s.lines.whole() {
			s.flush() // about to wait, maybe: show what we have
			// The start of a line the plugin is still writing: once it
			// is whole, it is decoded with what follows it.
			if batch && s.lines.buffered() && s.lines.more() {
				continue
			}
		}
		line, err := s.lines.next()
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				s.fail(CodeMalformedResponse, fmt.Errorf("wrote a protocol line longer than %d bytes", s.r.Limits.Line))
			} else if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, os.ErrClosed) {
				s.r.UI.Warn(s.name, fmt.Sprintf("reading the plugin's output: %v", err))
			}
			return
		}
		s.handle(line)
	}
}

// handle dispatches one line.
func (s *session) handle(line []byte) {
	if b, ok := protocol.AppendOutputText(s.scratch[:0], line); ok {
		s.scratch = b
		s.outputBytes(b)
		return
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	// The message lives in the session, not on the heap per line: the
	// handlers (and the questions they ask) are done with it before the
	// next line is read.
	m := &s.msg
	if err := protocol.Decode(line, m, &s.scratch); err != nil {
		s.undecodable(line, err)
		return
	}
	switch m.Type {
	case protocol.TypeOutput:
		s.output(m.Text)
		return
	case protocol.TypeLog:
		s.flush() // keep output and logs in the order the plugin sent them
		// Log, output, progress and question text are the plugin's
		// rendered text: escape sequences in it are presentation, so they
		// are stripped (colour kept for output on a terminal), not escaped.
		s.r.UI.Log(s.name, ParseLevel(m.Level), termsafe.Text(m.Message))
		return
	case protocol.TypeProgress:
		s.showProgress(m)
		return
	case protocol.TypeStore:
		s.store(m)
		return
	case "":
		s.malformed("a message without a type")
		return
	case protocol.TypeResponse, protocol.TypeCancel, protocol.TypeInit:
		// Messages fledge sends, echoed back: nothing is pending for them.
		s.malformed(fmt.Sprintf("a %q message, which only fledge sends (an orphaned reply?)", m.Type))
		return
	}
	if !protocol.IsRequest(m.Type) {
		return // unknown types are ignored: a newer plugin may send them
	}
	if !validID(m.ID) {
		if len(m.ID) == 0 || string(m.ID) == "null" {
			s.malformed(fmt.Sprintf("a %s request without an id (skipped)", m.Type))
		} else {
			s.malformed(fmt.Sprintf("a %s request whose id is neither a string nor a number (skipped)", m.Type))
		}
		return
	}
	switch m.Type {
	case protocol.TypePrompt:
		s.prompt(m)
	case protocol.TypeConfirm:
		s.confirm(m)
	case protocol.TypeSelect:
		s.choose(m)
	case protocol.TypeMultiSelect:
		s.chooseMany(m)
	case protocol.TypeLoad:
		s.load(m)
	case protocol.TypeExec:
		s.exec(m)
	case protocol.TypeMetadata:
		s.metadata(m)
	}
}

// undecodable handles a line that is not a valid message. A request whose
// type and id can still be read gets a cancel (reason invalid_request), so
// the plugin is not left waiting for an answer that will never come.
func (s *session) undecodable(line []byte, err error) {
	var head struct {
		Type string          `json:"type"`
		ID   json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &head) == nil && protocol.IsRequest(head.Type) && validID(head.ID) {
		s.malformed(fmt.Sprintf("an invalid %s request: %v (cancelled)", head.Type, err))
		s.cancelRequest(head.ID, protocol.ReasonInvalidRequest)
		return
	}
	s.malformed(fmt.Sprintf("a line that is not a protocol message (%v)", termsafe.Truncate(err.Error(), 120)))
}

// malformed warns about a bad line, up to Limits.Warnings times.
func (s *session) malformed(what string) {
	s.warnings++
	if s.warnings <= s.r.Limits.Warnings {
		s.r.UI.Warn(s.name, "skipped "+what)
	}
}

// validID accepts the ids plugins use: JSON strings and numbers.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// respond answers request id.
func (s *session) respond(id json.RawMessage, value any) {
	var err error
	if b, ok := protocol.AppendResponse(s.enc[:0], id, value); ok {
		s.enc = b
		err = s.in.sendLine(b)
	} else {
		if value == nil {
			value = json.RawMessage("null")
		}
		err = s.in.send(protocol.Response{Type: protocol.TypeResponse, ID: id, Value: value})
	}
	if err != nil {
		s.fail(CodeMalformedResponse, err)
	}
}

// cancelRequest withdraws request id.
func (s *session) cancelRequest(id json.RawMessage, reason string) {
	var err error
	if b, ok := protocol.AppendCancel(s.enc[:0], id, reason); ok {
		s.enc = b
		err = s.in.sendLine(b)
	} else {
		err = s.in.send(protocol.Cancel{Type: protocol.TypeCancel, ID: id, Reason: reason})
	}
	if err != nil {
		s.fail(CodeMalformedResponse, err)
	}
}

// directWrite is the size from which decoded output is written to
// Stdout from where it was decoded, not copied into the session's buffer
// first: a flood's texts, decoded a buffer at a time.
const directWrite = 16 << 10

// outputBytes is output for text decoded into a scratch buffer.
func (s *session) outputBytes(b []byte) {
	switch {
	case s.capture != nil:
		_, _ = s.capture.Write(b)
	case !s.r.StdoutTTY && len(b) >= directWrite:
		s.flush() // what came before goes first
		_, _ = s.r.Stdout.Write(b)
	case !s.r.StdoutTTY:
		_, _ = s.out.Write(b)
	default:
		s.output(string(b))
	}
}

// output writes a plugin's output text: verbatim off a terminal, cleaned
// of everything but colour on one, or into the --json capture.
func (s *session) output(text string) {
	if s.capture != nil {
		_, _ = s.capture.Write([]byte(text))
		return
	}
	if s.r.StdoutTTY {
		if s.r.NoColor {
			text = termsafe.Text(text)
		} else {
			text = termsafe.Styled(text)
		}
		if s.progress != nil {
			// The bar shares the terminal: lift it, print, put it back.
			s.r.UI.Pause()
			_, _ = s.out.WriteString(text)
			s.flush()
			s.r.UI.Progress(*s.progress)
			return
		}
	}
	_, _ = s.out.WriteString(text)
}

// showProgress updates or clears the progress display.
func (s *session) showProgress(m *protocol.Outbound) {
	if m.Done {
		if s.progress != nil {
			s.flush()
			s.r.UI.Progress(Progress{Plugin: s.name, Done: true})
			s.progress = nil
		}
		return
	}
	p := Progress{Plugin: s.name, Message: termsafe.Line(m.Message)}
	if m.Current != nil && m.Total != nil && *m.Total > 0 {
		p.Determinate = true
		p.Current, p.Total = min(max(*m.Current, 0), *m.Total), *m.Total
	}
	s.flush()
	s.progress = &p
	s.r.UI.Progress(p)
}

// deny records and reports, once per capability, a request the grants do
// not allow.
func (s *session) deny(c manifest.Capability) {
	s.denied[c] = true
	if d, ok := s.t.policy[c]; ok {
		s.warnOnce("deny:"+string(c), policyDenialMessage(c, d))
		return
	}
	s.warnOnce("deny:"+string(c), fmt.Sprintf("denied %s: plugins.toml does not grant this plugin the %s capability", c, c))
}

// Package plugintest is a fake fledge host for testing fledge-v1 plugins
// without fledge: it sends init, reads what the plugin writes, and answers or
// cancels its requests from a script. It works over any pipe pair: io.Pipe
// for a plugin running in-process (see Pipe), or a child process's stdin and
// stdout.
//
// It is a test double, not the real host: it enforces no capabilities and
// shows nothing on a terminal.
package plugintest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/protocol"
)

// Host is the fledge side of one connection.
type Host struct {
	w     io.Writer
	wmu   sync.Mutex
	lines *bufio.Scanner
}

// NewHost talks to a plugin that reads toPlugin and writes fromPlugin.
func NewHost(toPlugin io.Writer, fromPlugin io.Reader) *Host {
	sc := bufio.NewScanner(fromPlugin)
	sc.Buffer(make([]byte, 0, 64<<10), pluginsdk.MaxLineSize+1) // +1: the newline
	return &Host{w: toPlugin, lines: sc}
}

// Pipe returns an in-process plugin connection and the Host at its other
// end. Close the host to end the plugin's stdin; the plugin side's stdout
// is closed by CloseOutput (or when the returned closer is called).
func Pipe() (p *pluginsdk.IO, h *Host, closePlugin func()) {
	inR, inW := io.Pipe()   // host → plugin
	outR, outW := io.Pipe() // plugin → host
	p = pluginsdk.NewIO(inR, outW)
	h = NewHost(inW, outR)
	return p, h, func() { outW.Close() }
}

// Message is one line the plugin wrote.
type Message struct {
	protocol.Outbound
	// Raw is the line exactly as written, without its newline.
	Raw []byte
	// Err is set when the line is not a valid message: longer than fledge
	// accepts, not a JSON object, or a request without a string id.
	Err error
}

// RequestID is the message's id as a string ("" if it has none).
func (m Message) RequestID() string {
	var id string
	_ = json.Unmarshal(m.ID, &id)
	return id
}

// WriteLine sends one raw line (a newline is added), for malformed input.
func (h *Host) WriteLine(line string) error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	_, err := io.WriteString(h.w, line+"\n")
	return err
}

// Send writes v as one JSON line.
func (h *Host) Send(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	h.wmu.Lock()
	defer h.wmu.Unlock()
	_, err := h.w.Write(buf.Bytes())
	return err
}

// SendInit sends init, filling in its type and protocol when empty.
func (h *Host) SendInit(init protocol.Init) error {
	if init.Type == "" {
		init.Type = protocol.TypeInit
	}
	if init.Protocol == "" {
		init.Protocol = protocol.Version
	}
	if init.Args == nil {
		init.Args = []string{}
	}
	return h.Send(init)
}

// Respond answers the request with the given id.
func (h *Host) Respond(id json.RawMessage, value any) error {
	return h.Send(protocol.Response{Type: protocol.TypeResponse, ID: id, Value: value})
}

// Cancel withdraws the request with the given id, or cancels the whole run
// when id is nil.
func (h *Host) Cancel(id json.RawMessage, reason string) error {
	return h.Send(protocol.Cancel{Type: protocol.TypeCancel, ID: id, Reason: reason})
}

// Close ends the plugin's stdin if the writer can be closed.
func (h *Host) Close() error {
	if c, ok := h.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// ReadLine returns the next non-blank line the plugin wrote, or io.EOF.
func (h *Host) ReadLine() ([]byte, error) {
	for h.lines.Scan() {
		line := bytes.TrimSpace(h.lines.Bytes())
		if len(line) > 0 {
			return bytes.Clone(line), nil
		}
	}
	if err := h.lines.Err(); err != nil {
		return nil, err
	}
	return nil, io.EOF
}

// Next reads and decodes the next message. A malformed line is returned
// with Err set, not as an error; the error is for the stream itself
// (io.EOF when the plugin closed stdout).
func (h *Host) Next() (Message, error) {
	line, err := h.ReadLine()
	if err != nil {
		return Message{}, err
	}
	return Decode(line), nil
}

// Decode parses one outbound line.
func Decode(line []byte) Message {
	m := Message{Raw: line}
	if len(line) > pluginsdk.MaxSendSize {
		m.Err = fmt.Errorf("line of %d bytes: fledge accepts at most %d", len(line), pluginsdk.MaxSendSize)
		return m
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&m.Outbound); err != nil {
		m.Err = fmt.Errorf("malformed JSON: %w", err)
		return m
	}
	if dec.More() {
		m.Err = errors.New("more than one JSON value on the line")
		return m
	}
	if m.Type == "" {
		m.Err = errors.New("no type")
		return m
	}
	if protocol.IsRequest(m.Type) {
		var id string
		if err := json.Unmarshal(m.ID, &id); err != nil || id == "" {
			m.Err = fmt.Errorf("%s request without a string id", m.Type)
		}
	}
	return m
}

// Reply is an Answer's decision for one request: a response with Value; or,
// when Cancel (a reason) is set, a cancel of this request; or, when
// CancelRun (a reason) is set, a cancel of the whole run.
type Reply struct {
	Value     any
	Cancel    string
	CancelRun string
}

// Answer decides the reply to a message. Serve calls it for every
// well-formed message, so it can watch fire-and-forget ones too (see
// Store), but sends its Reply only for requests.
type Answer func(Message) Reply

// Serve reads every message until the plugin closes stdout, passing each
// well-formed one to answer and sending the reply to requests, and returns
// the transcript. Malformed lines are kept (with Err set) and get no
// answer, as fledge does.
func (h *Host) Serve(answer Answer) ([]Message, error) {
	var all []Message
	for {
		m, err := h.Next()
		if errors.Is(err, io.EOF) {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		all = append(all, m)
		if m.Err != nil {
			continue
		}
		r := answer(m)
		if !protocol.IsRequest(m.Type) {
			continue
		}
		switch {
		case r.CancelRun != "":
			err = h.Cancel(nil, r.CancelRun)
		case r.Cancel != "":
			err = h.Cancel(m.ID, r.Cancel)
		default:
			err = h.Respond(m.ID, r.Value)
		}
		if err != nil {
			return all, fmt.Errorf("answer %s %s: %w", m.Type, m.RequestID(), err)
		}
	}
}

// NonInteractive answers as fledge does with no terminal and no capabilities
// granted: prompts get their defaults (a prompt without one is canceled with
// protocol.ReasonNonInteractive), load gets null, exec gets code 126 and
// metadata an empty object.
func NonInteractive(m Message) Reply {
	switch m.Type {
	case protocol.TypePrompt:
		var def *string
		if json.Unmarshal(m.Default, &def) != nil || def == nil {
			return Reply{Cancel: protocol.ReasonNonInteractive}
		}
		return Reply{Value: *def}
	case protocol.TypeConfirm:
		var def bool
		_ = json.Unmarshal(m.Default, &def)
		return Reply{Value: def}
	case protocol.TypeSelect:
		var i int
		_ = json.Unmarshal(m.Default, &i)
		if i < 0 || i >= len(m.Options) {
			return Reply{Cancel: protocol.ReasonNonInteractive}
		}
		return Reply{Value: m.Options[i]}
	case protocol.TypeMultiSelect:
		chosen := []string{}
		for _, i := range m.Defaults {
			if i >= 0 && i < len(m.Options) {
				chosen = append(chosen, m.Options[i])
			}
		}
		return Reply{Value: chosen}
	case protocol.TypeExec:
		return Reply{Value: protocol.ExecResult{Code: protocol.ExitDenied, Stderr: "exec capability not granted"}}
	case protocol.TypeMetadata:
		return Reply{Value: map[string]any{}}
	}
	return Reply{Value: nil} // load, and types this host does not know
}

// Store is an in-memory plugin store, as fledge keeps one per plugin.
type Store map[string]string

// Answer wraps next: store messages update s and load requests are answered
// from it (null when the key is absent); everything else goes to next.
func (s Store) Answer(next Answer) Answer {
	return func(m Message) Reply {
		switch m.Type {
		case protocol.TypeStore:
			var v string
			if json.Unmarshal(m.Value, &v) == nil {
				s[m.Key] = v
			}
			return Reply{}
		case protocol.TypeLoad:
			if v, ok := s[m.Key]; ok {
				return Reply{Value: v}
			}
			return Reply{Value: nil}
		}
		return next(m)
	}
}

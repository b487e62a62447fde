package pluginsdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/corvidlabs/fledge-go/protocol"
)

// Level is a log level.
type Level string

// Log levels fledge understands.
const (
	LevelDebug Level = "debug"
	LevelInfo  Level = "info"
	LevelWarn  Level = "warn"
	LevelError Level = "error"
)

// outputChunk bounds the text of one output message so that even escaped
// (a control byte becomes six) it stays under MaxSendSize.
const outputChunk = 128 << 10

// Output writes text to the user's terminal verbatim: it is the plugin's
// result. Add the trailing newline yourself. Empty text sends nothing; long
// text goes out as several output messages, split between characters, which
// fledge prints back to back.
func (p *IO) Output(text string) error {
	for text != "" {
		n := len(text)
		if n > outputChunk {
			n = outputChunk
			for n > 0 && !utf8.RuneStart(text[n]) {
				n--
			}
			if n == 0 { // no rune start in the chunk: not UTF-8 anyway
				n = outputChunk
			}
		}
		// Send's encoding, without reflection: output is most of what a
		// plugin sends, and reflection is slow in wasm.
		line := protocol.AppendOutput(make([]byte, 0, n+32), text[:n])
		if err := p.writeLine(protocol.TypeOutput, line); err != nil {
			return err
		}
		text = text[n:]
	}
	return nil
}

// Outputf formats and writes output, like fmt.Printf.
func (p *IO) Outputf(format string, args ...any) error {
	return p.Output(fmt.Sprintf(format, args...))
}

// Log emits a diagnostic, which fledge shows styled and prefixed with the
// plugin's name, apart from the output.
func (p *IO) Log(level Level, message string) error {
	return p.Send(protocol.Outbound{Type: protocol.TypeLog, Level: string(level), Message: message})
}

// Logf formats and emits a diagnostic.
func (p *IO) Logf(level Level, format string, args ...any) error {
	return p.Log(level, fmt.Sprintf(format, args...))
}

// Progress shows a progress bar at current out of total.
func (p *IO) Progress(message string, current, total int) error {
	c, t := float64(current), float64(total)
	return p.Send(protocol.Outbound{Type: protocol.TypeProgress, Message: message, Current: &c, Total: &t})
}

// Spinner shows an indeterminate progress spinner.
func (p *IO) Spinner(message string) error {
	return p.Send(protocol.Outbound{Type: protocol.TypeProgress, Message: message})
}

// ProgressDone clears the progress bar or spinner.
func (p *IO) ProgressDone() error {
	return p.Send(protocol.Outbound{Type: protocol.TypeProgress, Done: true})
}

// Prompt asks for a line of text. def is the pre-filled answer, sent only
// when non-empty; with no terminal fledge answers with it, and a prompt
// without one is canceled (reason protocol.ReasonNonInteractive). validate is
// "" or one of the protocol.Validate* names.
func (p *IO) Prompt(message, def, validate string) (string, error) {
	m := protocol.Outbound{Type: protocol.TypePrompt, Message: message, Validate: validate}
	if def != "" {
		m.Default = jsonString(def)
	}
	raw, id, err := p.request(m)
	if err != nil {
		return "", err
	}
	var s *string
	if err := json.Unmarshal(raw, &s); err != nil || s == nil {
		return "", responseError(m.Type, id, raw, errors.New("want a string"))
	}
	return *s, nil
}

// Confirm asks a yes/no question; def is the answer without a terminal.
func (p *IO) Confirm(message string, def bool) (bool, error) {
	m := protocol.Outbound{Type: protocol.TypeConfirm, Message: message, Default: json.RawMessage(strconv.FormatBool(def))}
	raw, id, err := p.request(m)
	if err != nil {
		return false, err
	}
	var b *bool
	if err := json.Unmarshal(raw, &b); err != nil || b == nil {
		return false, responseError(m.Type, id, raw, errors.New("want true or false"))
	}
	return *b, nil
}

// Select asks for one of options and returns it. def, when non-empty, must
// be one of options; it is pre-selected and is the answer without a
// terminal.
func (p *IO) Select(message string, options []string, def string) (string, error) {
	if len(options) == 0 {
		return "", errors.New("pluginsdk: select needs at least one option")
	}
	m := protocol.Outbound{Type: protocol.TypeSelect, Message: message, Options: options}
	if def != "" {
		i := slices.Index(options, def)
		if i < 0 {
			return "", fmt.Errorf("pluginsdk: select default %q is not one of the options", def)
		}
		m.Default = json.RawMessage(strconv.Itoa(i))
	}
	raw, id, err := p.request(m)
	if err != nil {
		return "", err
	}
	choice, ok := pickOption(raw, options)
	if !ok {
		return "", responseError(m.Type, id, raw, errors.New("want one of the options"))
	}
	return choice, nil
}

// MultiSelect asks for any number of options and returns the chosen ones.
// defaults, each one of options, are pre-selected and are the answer
// without a terminal. Give at least one: an empty list cannot be told from
// none on the wire, and fledge cancels a question without a default when
// no human can answer it.
func (p *IO) MultiSelect(message string, options, defaults []string) ([]string, error) {
	if len(options) == 0 {
		return nil, errors.New("pluginsdk: multi_select needs at least one option")
	}
	m := protocol.Outbound{Type: protocol.TypeMultiSelect, Message: message, Options: options}
	for _, d := range defaults {
		i := slices.Index(options, d)
		if i < 0 {
			return nil, fmt.Errorf("pluginsdk: multi_select default %q is not one of the options", d)
		}
		m.Defaults = append(m.Defaults, i)
	}
	raw, id, err := p.request(m)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, responseError(m.Type, id, raw, errors.New("want a list of options"))
	}
	chosen := []string{}
	for _, it := range items {
		choice, ok := pickOption(it, options)
		if !ok {
			return nil, responseError(m.Type, id, raw, errors.New("want a list of options"))
		}
		chosen = append(chosen, choice)
	}
	return chosen, nil
}

// pickOption reads a select answer: the option itself, as the protocol
// says, or (tolerated) its index.
func pickOption(raw json.RawMessage, options []string) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil && slices.Contains(options, s) {
		return s, true
	}
	var i int
	if json.Unmarshal(raw, &i) == nil && i >= 0 && i < len(options) {
		return options[i], true
	}
	return "", false
}

// Store saves value under key in the plugin's store. It needs the store
// capability; without it fledge drops the message silently.
func (p *IO) Store(key, value string) error {
	return p.Send(protocol.Outbound{Type: protocol.TypeStore, Key: key, Value: jsonString(value)})
}

// Load reads the value stored under key. found is false when there is none,
// or when the plugin was not granted the store capability.
func (p *IO) Load(key string) (value string, found bool, err error) {
	m := protocol.Outbound{Type: protocol.TypeLoad, Key: key}
	raw, id, err := p.request(m)
	if err != nil {
		return "", false, err
	}
	var s *string
	if err := json.Unmarshal(raw, &s); err != nil && len(raw) > 0 {
		return "", false, responseError(m.Type, id, raw, errors.New("want a string or null"))
	}
	if s == nil {
		return "", false, nil
	}
	return *s, true, nil
}

// Exec asks fledge to run command with the shell, in cwd (relative to the
// project root; "" for the root), killing it after timeout (0: fledge's
// default; rounded up to whole seconds). A command that fails is not an
// error: look at the result's Code. Without the exec capability the code is
// protocol.ExitDenied (126).
func (p *IO) Exec(command, cwd string, timeout time.Duration) (protocol.ExecResult, error) {
	m := protocol.Outbound{Type: protocol.TypeExec, Command: command, Cwd: cwd}
	if timeout > 0 {
		secs := math.Ceil(timeout.Seconds())
		m.Timeout = &secs
	}
	raw, id, err := p.request(m)
	if err != nil {
		return protocol.ExecResult{}, err
	}
	var res *protocol.ExecResult
	if err := json.Unmarshal(raw, &res); err != nil || res == nil {
		return protocol.ExecResult{}, responseError(m.Type, id, raw, errors.New("want {code, stdout, stderr}"))
	}
	return *res, nil
}

// Metadata asks for project metadata by key (protocol.MetaGitTags, …) and
// returns each value as raw JSON. Keys fledge does not know map to null;
// without the metadata capability the map is empty.
func (p *IO) Metadata(keys ...string) (map[string]json.RawMessage, error) {
	m := protocol.Outbound{Type: protocol.TypeMetadata, Keys: keys}
	raw, id, err := p.request(m)
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, responseError(m.Type, id, raw, errors.New("want an object"))
	}
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	return out, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

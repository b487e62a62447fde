package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// progressEvery is the least time between two progress notifications of a
// call: a plugin may send thousands of updates a second.
const progressEvery = 50 * time.Millisecond

// maxAttempts bounds how often a text question is asked again after an
// answer its validator refuses.
const maxAttempts = 3

// callUI is one call's runner.UI: logs and warnings become MCP logging
// notifications (and lines in the server's log), progress becomes progress
// notifications when the call carried a token, and questions become
// elicitation requests (the runner asks only when the client supports
// them: Runner.Interactive).
type callUI struct {
	ctx     context.Context // the call's: notifications belong to it
	session *mcp.ServerSession
	token   any // the call's progress token, nil when none
	log     *logger

	mu       sync.Mutex
	progress float64   // the last value sent; each must exceed it
	sent     time.Time // when; zero before the first
	steps    float64   // updates of an indeterminate display
}

var _ runner.UI = (*callUI)(nil)

// mcpLevel maps a plugin's log level to MCP's (RFC 5424 names).
func mcpLevel(l runner.Level) mcp.LoggingLevel {
	switch l {
	case runner.LevelDebug:
		return "debug"
	case runner.LevelWarn:
		return "warning"
	case runner.LevelError:
		return "error"
	}
	return "info"
}

// Log implements runner.UI.
func (u *callUI) Log(plugin string, level runner.Level, message string) {
	u.log.print(runner.FormatLog(termsafe.Escape(plugin), level, message))
	u.notify(mcpLevel(level), plugin, message)
}

// Warn implements runner.UI.
func (u *callUI) Warn(plugin, message string) {
	u.log.printf("warning: %s: %s\n", termsafe.Escape(plugin), termsafe.EscapeText(message))
	u.notify("warning", "fledge", plugin+": "+message)
}

// notify sends the client a logging notification, at or above the level
// it set. The SDK marks MCP logging deprecated as of protocol 2026-07-28
// (SEP-2577: servers should log to stderr, which the server's log above
// already is), and offers nothing in its place for the client; every
// version fledge speaks is older (see handshakeVersions), where logging is
// the protocol's way to show a plugin's logs, so this is the one place the
// deprecated call stays until the handshake versions move on.
func (u *callUI) notify(level mcp.LoggingLevel, logger, data string) {
	//lint:ignore SA1019 the only way to reach the client in the versions served (see above)
	_ = u.session.Log(u.ctx, &mcp.LoggingMessageParams{Level: level, Logger: logger, Data: data})
}

// Progress implements runner.UI. A bar sends its current value and total;
// a spinner sends how many updates it has had. Values that would not
// increase are not sent.
func (u *callUI) Progress(p runner.Progress) {
	if u.token == nil || p.Done {
		return
	}
	u.mu.Lock()
	n := &mcp.ProgressNotificationParams{ProgressToken: u.token, Message: p.Message}
	if p.Determinate {
		n.Progress, n.Total = p.Current, p.Total
	} else {
		u.steps++
		n.Progress = max(u.steps, u.progress+1)
	}
	final := p.Determinate && p.Total > 0 && p.Current >= p.Total
	if !u.sent.IsZero() && (n.Progress <= u.progress || !final && time.Since(u.sent) < progressEvery) {
		u.mu.Unlock()
		return
	}
	u.progress, u.sent = n.Progress, time.Now()
	u.mu.Unlock()
	_ = u.session.NotifyProgress(u.ctx, n)
}

// Pause implements runner.UI: nothing is drawn.
func (u *callUI) Pause() {}

// asks is how a question names its plugin.
func asks(q runner.Question) string { return fmt.Sprintf("%s asks: %s", q.Plugin, q.Message) }

// elicit sends one form and returns its content, or runner.ErrAborted when
// the person declines or dismisses it (as Esc on a terminal).
func (u *callUI) elicit(ctx context.Context, message string, props map[string]any, required ...string) (map[string]any, error) {
	res, err := u.session.Elicit(ctx, &mcp.ElicitParams{
		Message:         message,
		RequestedSchema: &jsonschemaObject{Type: "object", Properties: props, Required: required},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if res.Action != "accept" {
		return nil, runner.ErrAborted
	}
	return res.Content, nil
}

// Confirm implements runner.UI.
func (u *callUI) Confirm(ctx context.Context, q runner.Question, def bool) (bool, error) {
	c, err := u.elicit(ctx, asks(q), map[string]any{
		"answer": map[string]any{"type": "boolean", "title": "Yes", "default": def},
	})
	if err != nil {
		return false, err
	}
	if v, ok := c["answer"].(bool); ok {
		return v, nil
	}
	return def, nil // left as it was: the default
}

// Prompt implements runner.UI. An empty answer, or the default sent back
// as shown, stands for the default: the runner then answers with the
// plugin's own default, byte for byte.
func (u *callUI) Prompt(ctx context.Context, q runner.Question) (string, error) {
	message := asks(q)
	for attempt := 1; ; attempt++ {
		prop := map[string]any{"type": "string", "title": "Answer"}
		if q.Default != "" {
			prop["default"] = q.Default
			prop["description"] = "Leave it empty for the default, " + q.Default
		}
		c, err := u.elicit(ctx, message, map[string]any{"answer": prop})
		if err != nil {
			return "", err
		}
		answer, _ := c["answer"].(string)
		if q.Default != "" && answer == q.Default {
			answer = ""
		}
		if q.Validate == nil {
			return answer, nil
		}
		verr := q.Validate(answer)
		if verr == nil {
			return answer, nil
		}
		if attempt == maxAttempts {
			return "", fmt.Errorf("%d answers were refused, the last: %v", attempt, verr)
		}
		message = fmt.Sprintf("%s\n(%s; try again)", asks(q), termsafe.EscapeText(verr.Error()))
	}
}

// choices are options as titled enum entries, answered by their 1-based
// index: the plugin gets back its own option for it.
func choices(options []string) []any {
	out := make([]any, len(options))
	for i, o := range options {
		title := o // escaped by the runner
		if title == "" {
			title = "(empty)"
		}
		out[i] = map[string]any{"const": strconv.Itoa(i + 1), "title": title}
	}
	return out
}

// choice reads a 1-based index answer.
func choice(v any, n int) (int, error) {
	s, _ := v.(string)
	i, err := strconv.Atoi(s)
	if err != nil || i < 1 || i > n {
		return 0, fmt.Errorf("the answer %v is not one of the %d options", v, n)
	}
	return i - 1, nil
}

// Select implements runner.UI.
func (u *callUI) Select(ctx context.Context, q runner.Question, options []string, def int) (int, error) {
	prop := map[string]any{"type": "string", "title": "Choice", "oneOf": choices(options)}
	if def >= 0 && def < len(options) {
		prop["default"] = strconv.Itoa(def + 1)
	}
	c, err := u.elicit(ctx, asks(q), map[string]any{"answer": prop}, "answer")
	if err != nil {
		return 0, err
	}
	return choice(c["answer"], len(options))
}

// MultiSelect implements runner.UI.
func (u *callUI) MultiSelect(ctx context.Context, q runner.Question, options []string, defaults []int) ([]int, error) {
	prop := map[string]any{"type": "array", "title": "Choices", "uniqueItems": true,
		"items": map[string]any{"anyOf": choices(options)}}
	def := []string{}
	for _, d := range defaults {
		def = append(def, strconv.Itoa(d+1))
	}
	prop["default"] = def
	c, err := u.elicit(ctx, asks(q), map[string]any{"answer": prop}, "answer")
	if err != nil {
		return nil, err
	}
	raw, _ := c["answer"].([]any)
	out := []int{}
	for _, v := range raw {
		i, err := choice(v, len(options))
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, nil
}

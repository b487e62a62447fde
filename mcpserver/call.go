package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/corvidlabs/fledge-go/catalog"
	"github.com/corvidlabs/fledge-go/events"
	"github.com/corvidlabs/fledge-go/runner"
	"github.com/corvidlabs/fledge-go/settings"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// Error codes of calls refused before anything ran (beside the runner's).
const (
	CodeInvalidArguments = "invalid_arguments"
	CodeApprovalRequired = "approval_required"
	// CodeMalformedOutput: a command that declares an output schema
	// printed something else.
	CodeMalformedOutput = "malformed_output"
	CodeStateCorrupt    = runner.CodeStateCorrupt
	// CodePolicyDenied: the admin policy in force cannot be read, so
	// nothing runs (the runner refuses what it forbids on its own).
	CodePolicyDenied = runner.CodePolicyDenied
)

// handler is the tools/call handler of t.
func (s *Server) handler(t *catalog.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The call ends when the client cancels it, or is hung up.
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		c := s.track(req.Session.ID(), streamOf(req), cancel)
		if c == nil {
			return failure("", nil, runner.CodeInterrupted, "fledge mcp is shutting down", ""), nil
		}
		defer s.untrack(c)
		return s.call(ctx, c.kill, t, req), nil
	}
}

// call runs one tools/call. Every outcome is a result: a plugin's failure
// is the tool's error, not the protocol's. A call refused before the
// runner was asked (bad arguments, a dangerous command not confirmed, the
// policy) is recorded in the event trail here; the runner records the
// rest.
func (s *Server) call(ctx context.Context, kill <-chan struct{}, t *catalog.Tool, req *mcp.CallToolRequest) *mcp.CallToolResult {
	start := time.Now()
	ran := false
	res := s.callTool(ctx, kill, t, req, &ran)
	if !ran {
		s.recordRefused(t, req, res, time.Since(start))
	}
	return res
}

// recordRefused writes a call that never reached the runner to the event
// trail, as denied with the result's code.
func (s *Server) recordRefused(t *catalog.Tool, req *mcp.CallToolRequest, res *mcp.CallToolResult, took time.Duration) {
	r := s.opts.Runner
	if r.Events == nil {
		return
	}
	code, _ := res.Meta[MetaErrorCode].(string)
	msg := ""
	if n := len(res.Content); n > 0 {
		if tc, ok := res.Content[n-1].(*mcp.TextContent); ok {
			msg = tc.Text
		}
	}
	e := events.Event{Kind: events.KindToolCall, Plugin: t.Plugin, Commit: t.Commit, Command: t.Command, Actor: *actorOf(r.Actor, req.Session),
		Outcome: events.OutcomeDenied, Code: code, DurationMS: took.Milliseconds(), Denials: []events.Denial{{Item: "call", Reason: msg}}}
	if err := r.Events.Append(e); err != nil && s.log != nil {
		s.log.printf("warning: the event trail could not record a refused call: %v\n", err)
	}
}

func (s *Server) callTool(ctx context.Context, kill <-chan struct{}, t *catalog.Tool, req *mcp.CallToolRequest, ran *bool) *mcp.CallToolResult {
	argv, err := t.Argv(req.Params.Arguments)
	if err != nil {
		return failure("", nil, CodeInvalidArguments, termsafe.EscapeText(err.Error()),
			"call it with arguments that match its input schema")
	}
	timeout, err := s.callTimeout(req.Params.Meta)
	if err != nil {
		return failure("", nil, CodeInvalidArguments, err.Error(), "")
	}
	elicit := !s.opts.NonInteractive && canElicit(req.Session)
	if t.Dangerous && !s.opts.AllowDangerous {
		if res := s.confirmDangerous(ctx, t, argv, req.Session, elicit); res != nil {
			return res
		}
	}
	if s.opts.Prepare != nil {
		if err := s.opts.Prepare(); err != nil {
			return failure("", nil, CodeStateCorrupt, termsafe.EscapeText(err.Error()), "")
		}
	}
	ui := &callUI{ctx: ctx, session: req.Session, token: req.Params.GetProgressToken(), log: s.log}
	r := s.opts.Runner
	r.Paths, r.Version, r.UI = s.opts.Paths, s.opts.Version, ui
	r.Stdin, r.Stdout, r.StdoutTTY, r.NoColor = nil, io.Discard, false, true
	if r.Stderr == nil {
		r.Stderr = s.opts.Log
	}
	r.Interactive = elicit
	// No terminal: each plugin gets a process group of its own, stopped
	// whole.
	r.Headless = true
	set, err := settings.Load(s.opts.Settings)
	if err != nil {
		return failure("", nil, CodePolicyDenied, termsafe.EscapeText(err.Error()), "")
	}
	if d := set.Policy().OffersTool(t.Names()); d != nil {
		// Tightened since the list was built: the next poll drops it.
		return failure("", nil, CodePolicyDenied, termsafe.EscapeText(d.Text()), "")
	}
	r.Settings = set
	*ran = true
	res, err := r.Run(ctx, runner.Request{
		Command: t.Command, Plugin: t.Plugin, Args: argv,
		NonInteractive: !elicit, Timeout: timeout, Capture: true, Kill: kill,
		Actor: actorOf(r.Actor, req.Session),
	})
	return s.result(t, res, err)
}

// result turns a run into the call's result: a JSON command's output is
// its structured content too (see catalog.Tool.Structured).
func (s *Server) result(t *catalog.Tool, res *runner.Result, err error) *mcp.CallToolResult {
	var exit *int
	if res.Started {
		code := res.ExitCode
		exit = &code
	}
	if err == nil && res.Success() {
		structured, serr := t.Structured(res.Output)
		if serr != nil {
			return failure(res.Output, exit, CodeMalformedOutput, fmt.Sprintf("plugin %s: %s: %s", res.Plugin, res.Command, termsafe.EscapeText(serr.Error())),
				"the plugin's output_schema and what it prints disagree: report it to the plugin's author")
		}
		r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Output}}}
		if structured != nil {
			r.StructuredContent = structured
		}
		r.Meta = mcp.Meta{MetaExitCode: res.ExitCode}
		return r
	}
	hint := ""
	if s.opts.Hint != nil && err != nil {
		hint = s.opts.Hint(res, err)
	}
	if err == nil {
		return failure(res.Output, exit, "", fmt.Sprintf("plugin %s: %s exited with code %d", res.Plugin, res.Command, res.ExitCode), "")
	}
	code := runner.CodeOf(err)
	if code == "" {
		code = runner.CodeLaunchFailed
	}
	return failure(res.Output, exit, code, termsafe.EscapeText(err.Error()), hint)
}

// failure is an isError result: the output so far, then what went wrong.
func failure(output string, exit *int, code, message, hint string) *mcp.CallToolResult {
	var b strings.Builder
	if code != "" {
		fmt.Fprintf(&b, "error (%s): %s", code, message)
	} else {
		b.WriteString(message)
	}
	if hint != "" {
		fmt.Fprintf(&b, "\nhint: %s", termsafe.EscapeText(hint))
	}
	r := &mcp.CallToolResult{IsError: true, Meta: mcp.Meta{}}
	if output != "" {
		r.Content = append(r.Content, &mcp.TextContent{Text: output})
	}
	r.Content = append(r.Content, &mcp.TextContent{Text: b.String()})
	if exit != nil {
		r.Meta[MetaExitCode] = *exit
	}
	if code != "" {
		r.Meta[MetaErrorCode] = code
	}
	return r
}

// callTimeout is the call's timeout: the server's, or less when the call's
// _meta asks for it.
func (s *Server) callTimeout(meta mcp.Meta) (time.Duration, error) {
	v, ok := meta[MetaTimeout]
	if !ok || v == nil {
		return s.opts.Timeout, nil
	}
	var d time.Duration
	switch x := v.(type) {
	case float64:
		d = time.Duration(x * float64(time.Second))
	case string:
		var err error
		if d, err = time.ParseDuration(x); err != nil {
			if n, nerr := strconv.ParseFloat(x, 64); nerr == nil {
				d, err = time.Duration(n*float64(time.Second)), nil
			}
		}
		if err != nil {
			d = 0
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("_meta %q is %s: want a positive number of seconds or a duration such as \"30s\"", MetaTimeout, termsafe.EscapeText(fmt.Sprint(v)))
	}
	return min(d, s.opts.Timeout), nil
}

// canElicit reports whether the client can be asked questions.
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil &&
		(p.Capabilities.Elicitation.Form != nil || p.Capabilities.Elicitation.URL == nil)
}

// confirmDangerous asks the person to confirm a dangerous command, showing
// exactly what will run; it returns the refusal, or nil to go on.
func (s *Server) confirmDangerous(ctx context.Context, t *catalog.Tool, argv []string, ss *mcp.ServerSession, elicit bool) *mcp.CallToolResult {
	what := fmt.Sprintf("tool %s runs %s of plugin %s, which its author marks dangerous (it has side effects worth confirming)", t.Name, t.Command, termsafe.Escape(t.Plugin))
	if !elicit {
		why := "this client cannot ask you to confirm it (it does not support elicitation)"
		if s.opts.NonInteractive {
			why = "the server was started not to ask (--ni)"
		}
		return failure("", nil, CodeApprovalRequired, what+"; "+why+", so fledge refuses to run it",
			"to let dangerous tools run without asking, start the server with: fledge mcp --allow-dangerous")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Run the dangerous command %s of plugin %s (tool %s)?", t.Command, termsafe.Escape(t.Plugin), t.Name)
	if len(argv) == 0 {
		b.WriteString("\nIt gets no arguments.")
	} else {
		b.WriteString("\nIts arguments, in order (escaped):")
		for i, a := range argv {
			fmt.Fprintf(&b, "\n  %d. \"%s\"", i+1, termsafe.Escape(a))
		}
	}
	// As long as a plugin's question may wait for its answer.
	wait := s.opts.Runner.Timeouts.Prompt
	if wait <= 0 {
		wait = runner.DefaultPromptTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{
		Message: b.String(),
		RequestedSchema: &jsonschemaObject{
			Type: "object",
			Properties: map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": "Run it", "description": "Run " + t.Command + " with these arguments", "default": false},
			},
			Required: []string{"confirm"},
		},
	})
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return failure("", nil, CodeApprovalRequired, fmt.Sprintf("%s; it was not confirmed within %s, so it did not run", what, wait), "")
	case err != nil && ctx.Err() != nil:
		return failure("", nil, runner.CodeInterrupted, "the call was cancelled while waiting for confirmation", "")
	case err != nil:
		return failure("", nil, CodeApprovalRequired, what+"; asking you to confirm failed: "+termsafe.EscapeText(err.Error()), "")
	case res.Action != "accept" || res.Content["confirm"] != true:
		return failure("", nil, CodeApprovalRequired, what+"; it was not confirmed, so it did not run", "")
	}
	return nil
}

// jsonschemaObject is a requested elicitation schema: an object of
// primitive properties.
type jsonschemaObject struct {
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
	Required   []string       `json:"required,omitempty"`
}

// actorOf is who asks for a tools/call, for the event trail: the MCP
// client as it named itself in initialize, in its session, on behalf of
// the user fledge runs as (user).
func actorOf(user events.Actor, ss *mcp.ServerSession) *events.Actor {
	a := user
	a.Kind = "mcp"
	if ss == nil {
		return &a
	}
	a.Session = ss.ID()
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		a.Client, a.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
	}
	return &a
}

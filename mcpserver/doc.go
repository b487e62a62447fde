// Package mcpserver serves the tool catalog (package catalog) over the
// Model Context Protocol, on the official Go SDK: every installed plugin
// command is a tool an agent host can list and call, and a call runs the
// command through the runner with exactly the grants the settings leave it
// (what plugins.toml records, narrowed by the admin policy), as `fledge
// plugins run` would.
//
// It owns: turning catalog tools into MCP tools (annotations, _meta), the
// tools/call path (argument validation, the dangerous-command gate, argv,
// one runner per call with its own timeout), the runner.UI that turns a
// plugin's logs, progress and questions into MCP logging and progress
// notifications and elicitation requests, watching plugins.toml,
// config.toml and the admin policy's files to announce tools/list_changed,
// which tools are offered (--tools) and the digest of them, stopping
// calls whose client is gone or whose server stops (stop.go), and the
// streamable HTTP handler's guards.
//
// It does not own: the catalog, a plugin's tier and grants or their
// enforcement (packages catalog, settings and runner: it reads the
// settings afresh for the catalog and for every call, and asks the
// command layer nothing about them), recovering interrupted installs (the
// command layer passes Options.Prepare: install's work, not linked here), the transport's process plumbing (the command
// layer gives it a stdio or HTTP transport), or hints for the user (the
// command layer passes Options.Hint).
//
// # Decisions
//
//   - Protocol versions: up to 2025-11-25, with the initialize handshake.
//     In the 2026-07-28 revision a server may not send a request while it
//     serves a call (elicitation must be returned as the call's result and
//     the call made again), which cannot ask a running plugin's question
//     and then carry on with the same process. The SDK's client falls back
//     to the handshake on its own.
//   - A plugin's own failure (it could not start, timed out, crashed, broke
//     the protocol, was denied a capability, exited non-zero) is a tool
//     result with isError set: its output, then a line "error (<code>):
//     <message>" with the runner's error code (seeds/004), and a hint where
//     there is one. A protocol error is kept for what is not a plugin's
//     doing: an unknown tool.
//   - Arguments are checked against the tool's schema before anything runs;
//     a mismatch is an isError result (code invalid_arguments) the model can
//     correct.
//   - A dangerous command runs only after the person confirms it through an
//     elicitation showing the command and each argument escaped (so what is
//     confirmed is what runs), or when the server was started with
//     --allow-dangerous; otherwise the call is refused (approval_required).
//   - Questions: with a client that supports elicitation, each becomes a
//     form (a boolean, a text with the plugin's default, a one-of or
//     any-of list of the escaped options, answered by index so the plugin
//     gets its own option back byte for byte). Declining or cancelling it is
//     the person abandoning the question, as Esc is on a terminal: the run
//     is interrupted. Without elicitation the non-interactive rule applies
//     (the default, or the question is cancelled) and the plugin sees
//     FLEDGE_NON_INTERACTIVE=1; so too under --ni, which also leaves a
//     dangerous command to --allow-dangerous alone.
//   - Logs go to the client as logging notifications (at the level it set)
//     and to the server's own log; progress goes as progress notifications
//     only when the call carried a progress token, at most every 50 ms and
//     always increasing, as the protocol requires.
//   - Every call has its own runner and UI and its own timeout: the server's
//     --timeout (10 minutes by default), or less when the call's _meta asks
//     for it with "fledge/timeout" (seconds, or a Go duration). Cancelling
//     the call (notifications/cancelled) is Ctrl+C for the plugin: cancel,
//     then signals on the runner's schedule, to its whole process group,
//     with or without the protocol (the runner is Headless).
//   - Stopping is total and bounded (stop.go): a call whose client is gone
//     (stdio input closed and the call still running Drain later, its
//     HTTP session deleted) or whose server is stopping (SIGINT, SIGTERM)
//     is hung up: stopped as a cancel, its plugin's group killed HangUp
//     later, answered, and then the session closes. Requests read before
//     the input closed are answered first.
//   - What is offered: the catalog (which leaves out what the policy's
//     [tools] rules keep from agents), narrowed by Options.Tools
//     (--tools). A tool not offered is not registered, so a call to it is
//     the SDK's unknown tool; a call is refused (policy_denied) when the
//     policy read for it no longer offers its tool. The initialize and
//     tools/list results carry catalog.Digest of what is offered.
//   - A command declaring output = "json" has its schema as the tool's
//     outputSchema and the object it prints as structuredContent, checked
//     against that schema; output breaking it fails (malformed_output),
//     since a client refuses a result its tool's schema does not cover.
//   - A request before initialize is answered with JSON-RPC's invalid
//     request (-32600): the SDK's own error carries no code.
//   - Nothing a plugin prints reaches the transport except as MCP messages:
//     each run captures its output (Runner.Stdout is io.Discard), plugins get
//     no stdin, and their stderr goes to the server's stderr.
package mcpserver

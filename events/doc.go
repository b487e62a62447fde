// Package events keeps the event trail: FLEDGE_HOME/events.jsonl, one JSON
// object a line, of the decisions fledge makes at run time — every plugin
// run and MCP tool call (plugin@commit, command, actor, outcome, exit
// code, duration) and every denial in it (item, rule, policy id and files,
// confinement). The grant log (package grantlog) stays the tamper-evident
// record of grants; this is the operational trail beside it.
//
// Append-only and safe in company: each event is one write(2) of one
// line to a file opened O_APPEND, which the kernel places whole at the
// end, so concurrent processes never interleave or lose lines. A write cut
// short — a full disk, or a SIGKILL landing while the kernel copies a line
// across a page boundary (Linux stops a write between pages for a fatal
// signal) — leaves part of a line, which the next line written joins: a
// reader skips (and counts) the line that does not decode, and every
// other event reads.
//
// Bounded: when the file passes MaxSize it is rotated, under a lock on a
// side file, to events.jsonl.1 (and .1 to .2, up to Keep copies; the
// oldest goes). An appender still holding the renamed file finishes its
// line there, where readers find it.
//
// It does not decide anything (runner and mcpserver record what they
// decided), and it is never a reason for a run to fail: an event that
// cannot be written is reported by the caller and the run goes on.
package events

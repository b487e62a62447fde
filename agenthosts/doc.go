// Package agenthosts wires `fledge mcp` into the agent hosts people use
// (Claude Code, Codex, Gemini CLI, Cursor, VS Code, Zed): where each keeps
// its MCP servers, in which file and format, for a user and (where the
// host has one) for a project, and how to add, replace and remove fledge's
// entry there.
//
// It owns: the table of hosts, and editing their files so that nothing
// but fledge's entry changes: JSON (with comments and trailing commas, as
// VS Code and Zed write it) is edited as text at the offsets a parse
// (tailscale/hujson) finds, and Codex's TOML by its [mcp_servers.NAME]
// table's lines; every other byte stays. An edit is idempotent: an entry
// already as wanted is no change.
//
// It does not own: which command and arguments the entry runs (the
// command layer says), or asking anyone anything. Writing is Apply's:
// to a temporary file beside the target, then renamed over it (through a
// symbolic link to the file it names), keeping the file's mode.
package agenthosts

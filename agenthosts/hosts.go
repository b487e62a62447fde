package agenthosts

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Server is the entry a host is given: a stdio MCP server.
type Server struct {
	// Name is the entry's key ("fledge").
	Name string
	// Command and Args are what the host runs.
	Command string
	Args    []string
}

// Env is where a host's user files are: injected, so tests use their own.
type Env struct {
	// Home is the user's home directory.
	Home string
	// ConfigDir is the user's configuration directory (os.UserConfigDir:
	// ~/.config on Linux, ~/Library/Application Support on macOS,
	// %AppData% on Windows).
	ConfigDir string
	// Getenv reads the environment (CODEX_HOME, XDG_CONFIG_HOME).
	Getenv func(string) string
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Host is an agent host fledge can be connected to.
type Host struct {
	// ID names it on the command line; Title for people.
	ID, Title string
	// format is "json" (with comments) or "toml".
	format string
	// key is the JSON object (or TOML table) holding the servers.
	key string
	// entry is what the host expects for a stdio server.
	entry func(Server) map[string]any
	// user is the user-scope file; project the project-scope file
	// relative to the project's root ("" when the host has none).
	user    func(Env) string
	project string
}

func stdio(typ string) func(Server) map[string]any {
	return func(s Server) map[string]any {
		m := map[string]any{"command": s.Command, "args": s.Args}
		if typ != "" {
			m["type"] = typ
		}
		return m
	}
}

// Hosts are the hosts fledge knows, by ID.
var hosts = []*Host{
	{ID: "claude-code", Title: "Claude Code", format: "json", key: "mcpServers", entry: stdio("stdio"),
		user: func(e Env) string { return filepath.Join(e.Home, ".claude.json") }, project: ".mcp.json"},
	{ID: "codex", Title: "Codex", format: "toml", key: "mcp_servers", entry: stdio(""),
		user: func(e Env) string {
			if d := e.getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "config.toml")
			}
			return filepath.Join(e.Home, ".codex", "config.toml")
		}},
	{ID: "gemini", Title: "Gemini CLI", format: "json", key: "mcpServers", entry: stdio(""),
		user: func(e Env) string { return filepath.Join(e.Home, ".gemini", "settings.json") }, project: filepath.Join(".gemini", "settings.json")},
	{ID: "cursor", Title: "Cursor", format: "json", key: "mcpServers", entry: stdio(""),
		user: func(e Env) string { return filepath.Join(e.Home, ".cursor", "mcp.json") }, project: filepath.Join(".cursor", "mcp.json")},
	{ID: "vscode", Title: "VS Code", format: "json", key: "servers", entry: stdio("stdio"),
		user: func(e Env) string { return filepath.Join(e.ConfigDir, "Code", "User", "mcp.json") }, project: filepath.Join(".vscode", "mcp.json")},
	{ID: "zed", Title: "Zed", format: "json", key: "context_servers",
		entry: func(s Server) map[string]any {
			return map[string]any{"source": "custom", "command": s.Command, "args": s.Args}
		},
		// Zed reads ~/.config/zed on macOS too.
		user: func(e Env) string {
			if d := e.getenv("XDG_CONFIG_HOME"); d != "" {
				return filepath.Join(d, "zed", "settings.json")
			}
			return filepath.Join(e.Home, ".config", "zed", "settings.json")
		}, project: filepath.Join(".zed", "settings.json")},
}

// Hosts lists the hosts' IDs.
func Hosts() []string {
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = h.ID
	}
	return out
}

// Lookup finds a host by ID (or a few common spellings: "claude",
// "vs-code", "code", "gemini-cli").
func Lookup(id string) (*Host, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	switch id {
	case "claude", "claude-code-cli":
		id = "claude-code"
	case "vs-code", "code":
		id = "vscode"
	case "gemini-cli":
		id = "gemini"
	}
	if i := slices.IndexFunc(hosts, func(h *Host) bool { return h.ID == id }); i >= 0 {
		return hosts[i], nil
	}
	return nil, fmt.Errorf("unknown agent host %q: want one of %s", id, strings.Join(Hosts(), ", "))
}

// File is the file h keeps its servers in: the user's, or the project's
// under root when project is set.
func (h *Host) File(e Env, project bool, root string) (string, error) {
	if !project {
		return h.user(e), nil
	}
	if h.project == "" {
		return "", fmt.Errorf("%s has no project-scope MCP settings: connect it for the user (without --project)", h.Title)
	}
	return filepath.Join(root, h.project), nil
}

// Connect returns data (a file's contents; nil or empty when it does not
// exist) with s as h's entry: added, or replaced when it differs. changed
// is false when the entry is already as wanted.
func (h *Host) Connect(data []byte, s Server) (out []byte, changed bool, err error) {
	if h.format == "toml" {
		return tomlConnect(data, h.key, s.Name, h.entry(s))
	}
	return jsonConnect(data, h.key, s.Name, h.entry(s))
}

// Disconnect returns data without h's entry name; changed is false when
// there is none.
func (h *Host) Disconnect(data []byte, name string) (out []byte, changed bool, err error) {
	if h.format == "toml" {
		return tomlDisconnect(data, h.key, name)
	}
	return jsonDisconnect(data, h.key, name)
}

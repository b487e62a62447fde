package protocol

import "encoding/json"

// Version is the protocol name plugins declare in plugin.toml.
const Version = "fledge-v1"

// Inbound message types (fledge → plugin).
const (
	TypeInit     = "init"
	TypeResponse = "response"
	TypeCancel   = "cancel"
)

// Outbound message types (plugin → fledge).
const (
	TypeOutput      = "output"
	TypeLog         = "log"
	TypeProgress    = "progress"
	TypePrompt      = "prompt"
	TypeConfirm     = "confirm"
	TypeSelect      = "select"
	TypeMultiSelect = "multi_select"
	TypeStore       = "store"
	TypeLoad        = "load"
	TypeExec        = "exec"
	TypeMetadata    = "metadata"
)

// Cancel reasons.
const (
	ReasonUserInterrupt = "user_interrupt"
	ReasonTimeout       = "timeout"
	// ReasonNonInteractive cancels a prompt that has no default when no
	// human can answer it.
	ReasonNonInteractive = "non_interactive"
	// ReasonInvalidRequest cancels a request the host could not
	// understand (a field of the wrong type, a select without options),
	// so the plugin is not left waiting for an answer.
	ReasonInvalidRequest = "invalid_request"
)

// Prompt validators.
const (
	ValidateNonEmpty   = "non_empty"
	ValidateInteger    = "integer"
	ValidatePathExists = "path_exists"
	ValidateURL        = "url"
)

// Metadata keys.
const (
	MetaFledgeConfig = "fledge_config"
	MetaGitTags      = "git_tags"
	MetaGitStatus    = "git_status"
	MetaGitLog       = "git_log"
	MetaEnv          = "env"
)

// ExitDenied is the exec result code for a command the plugin may not run.
const ExitDenied = 126

// Init is the first message a protocol plugin receives.
type Init struct {
	Type         string       `json:"type"`
	Protocol     string       `json:"protocol"`
	Command      string       `json:"command"`
	Args         []string     `json:"args"`
	Project      *Project     `json:"project"`
	Plugin       PluginInfo   `json:"plugin"`
	Fledge       FledgeInfo   `json:"fledge"`
	Capabilities Capabilities `json:"capabilities"`
}

// Project describes the directory fledge was run in, as the Rust fledge
// does: Name is its base name, Root the directory itself, Language Rust's
// label for it (generic when nothing matches). Languages (fledge's) lists
// every label that matches, in Rust's order.
type Project struct {
	Name      string   `json:"name"`
	Root      string   `json:"root"`
	Language  string   `json:"language"`
	Languages []string `json:"languages"`
	Git       *Git     `json:"git"`
}

// Git is the state of the repository holding the project (null outside
// one). With no remote, Remote is "origin" and RemoteURL "", as the Rust
// fledge sends them; RemoteURL never carries credentials. Root (fledge's)
// is the top level of the work tree.
type Git struct {
	Branch    string `json:"branch"`
	Dirty     bool   `json:"dirty"`
	Remote    string `json:"remote"`
	RemoteURL string `json:"remote_url"`
	Root      string `json:"root"`
}

// PluginInfo identifies the running plugin.
type PluginInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Dir     string `json:"dir"`
}

// FledgeInfo identifies the host.
type FledgeInfo struct {
	Version string `json:"version"`
}

// Capabilities are the grants in force for this run.
type Capabilities struct {
	Exec       bool   `json:"exec"`
	Store      bool   `json:"store"`
	Metadata   bool   `json:"metadata"`
	Network    bool   `json:"network,omitempty"`
	Filesystem string `json:"filesystem,omitempty"`
}

// Response answers a request. ID is echoed exactly as the plugin sent it.
type Response struct {
	Type  string          `json:"type"`
	ID    json.RawMessage `json:"id"`
	Value any             `json:"value"`
}

// Cancel withdraws a request (ID set) or asks the plugin to stop (ID empty).
type Cancel struct {
	Type   string          `json:"type"`
	ID     json.RawMessage `json:"id,omitempty"`
	Reason string          `json:"reason"`
}

// Inbound is any message a plugin may read, decoded loosely: Type says which
// fields matter.
type Inbound struct {
	Type   string          `json:"type"`
	ID     json.RawMessage `json:"id,omitempty"`
	Value  json.RawMessage `json:"value,omitempty"`
	Reason string          `json:"reason,omitempty"`
}

// Outbound is any message a plugin may write, decoded loosely: Type says
// which fields matter. Pointers distinguish "absent" from zero values.
type Outbound struct {
	Type string          `json:"type"`
	ID   json.RawMessage `json:"id,omitempty"`

	// output
	Text string `json:"text,omitempty"`
	// log
	Level string `json:"level,omitempty"`
	// log, progress, prompt, confirm, select, multi_select
	Message string `json:"message,omitempty"`
	// progress
	Current *float64 `json:"current,omitempty"`
	Total   *float64 `json:"total,omitempty"`
	Done    bool     `json:"done,omitempty"`
	// prompt (string), confirm (bool), select (index)
	Default  json.RawMessage `json:"default,omitempty"`
	Validate string          `json:"validate,omitempty"`
	// select, multi_select
	Options  []string `json:"options,omitempty"`
	Defaults []int    `json:"defaults,omitempty"`
	// store, load
	Key   string          `json:"key,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	// exec
	Command string   `json:"command,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	Timeout *float64 `json:"timeout,omitempty"`
	// metadata
	Keys []string `json:"keys,omitempty"`
}

// ExecResult is the value of a response to exec.
type ExecResult struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// IsRequest reports whether messages of type t expect a response.
func IsRequest(t string) bool {
	switch t {
	case TypePrompt, TypeConfirm, TypeSelect, TypeMultiSelect, TypeLoad, TypeExec, TypeMetadata:
		return true
	}
	return false
}

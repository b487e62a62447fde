package events

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// Kinds of event.
const (
	KindRun      = "run"       // fledge <command>, fledge plugins run
	KindToolCall = "tool_call" // an MCP tools/call
)

// Outcomes.
const (
	OutcomeOK     = "ok"     // the plugin ran and exited 0
	OutcomeFailed = "failed" // it ran and failed, or could not start
	OutcomeDenied = "denied" // the policy (or a disabled or revoked plugin) kept it from running
)

// Actor is who asked: the user, or an MCP client in a session.
type Actor struct {
	// Kind is "user" or "mcp".
	Kind string `json:"kind"`
	// UID is the account fledge runs as; User its name (left for the
	// reader to look up when the writer did not: a lookup costs more
	// than the append).
	User string `json:"user"`
	UID  int    `json:"uid"`
	// Client and ClientVersion are what the MCP client called itself in
	// initialize; Session is the MCP session's id.
	Client        string `json:"client,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	Session       string `json:"session,omitempty"`
}

// Denial is one thing refused in a run.
type Denial struct {
	// Item is a capability, "source", "protection" or "disabled".
	Item   string `json:"item"`
	Rule   string `json:"rule,omitempty"`
	File   string `json:"file,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Policy identifies the admin policy a decision was made under.
type Policy struct {
	// ID is the policy's digest (policy.Set.Digest): it changes when any
	// layer does.
	ID string `json:"id"`
	// Files are its layers' files, system first.
	Files []string `json:"files"`
}

// Event is one line of the trail.
type Event struct {
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"`
	Plugin  string    `json:"plugin"`
	Commit  string    `json:"commit"`
	Command string    `json:"command"`
	Actor   Actor     `json:"actor"`
	Outcome string    `json:"outcome"`
	// Code is the error code of a run that did not succeed ("" when it
	// did, or when it exited non-zero on its own).
	Code string `json:"code"`
	// ExitCode is the plugin's exit code (null when it never started).
	ExitCode   *int     `json:"exit_code"`
	DurationMS int64    `json:"duration_ms"`
	Denials    []Denial `json:"denials"`
	Policy     *Policy  `json:"policy"`
	// Confinement is how the kernel held the plugin's own code (or why
	// not), as the runner decided.
	Confinement string `json:"confinement"`
}

// Defaults of a Log.
const (
	DefaultMaxSize = 8 << 20
	DefaultKeep    = 3
	// MaxLine bounds one event's encoding: a longer one is cut to its
	// identity and outcome.
	MaxLine = 64 << 10
)

// Log is the trail at Path.
type Log struct {
	Path string
	// MaxSize is the size past which the file is rotated
	// (DefaultMaxSize); Keep how many rotated copies are kept
	// (DefaultKeep).
	MaxSize int64
	Keep    int
}

// New is the trail at path with the default bounds.
func New(path string) *Log { return &Log{Path: path} }

// Append writes e as one line.
func (l *Log) Append(e Event) error {
	if e.Denials == nil {
		e.Denials = []Denial{}
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	line, err := e.appendJSON(make([]byte, 0, 512))
	if err != nil {
		return err
	}
	if len(line) >= MaxLine {
		e.Denials, e.Policy = []Denial{{Item: "truncated", Reason: fmt.Sprintf("the event's %d bytes exceeded %d", len(line), MaxLine)}}, nil
		if line, err = e.appendJSON(line[:0]); err != nil {
			return err
		}
	}
	line = append(line, '\n')
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("event trail: %w", err)
	}
	// One write: O_APPEND places it whole at the end.
	_, err = f.Write(line)
	var size int64
	if fi, serr := f.Stat(); serr == nil {
		size = fi.Size()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("event trail %s: %w", l.Path, err)
	}
	if size > l.maxSize() {
		return l.rotate()
	}
	return nil
}

func (l *Log) maxSize() int64 {
	if l.MaxSize > 0 {
		return l.MaxSize
	}
	return DefaultMaxSize
}

func (l *Log) keep() int {
	if l.Keep > 0 {
		return l.Keep
	}
	return DefaultKeep
}

// Rotated is the path of the n-th rotated copy (n ≥ 1).
func (l *Log) Rotated(n int) string { return l.Path + "." + strconv.Itoa(n) }

// rotate shifts the copies and renames the file to .1, under a lock, if
// it is still over the size once the lock is held.
func (l *Log) rotate() error {
	unlock, err := lockedfile.MutexAt(l.Path + ".lock").Lock()
	if err != nil {
		return fmt.Errorf("event trail: lock: %w", err)
	}
	defer unlock()
	fi, err := os.Stat(l.Path)
	if err != nil || fi.Size() <= l.maxSize() {
		return nil // another process rotated it
	}
	os.Remove(l.Rotated(l.keep()))
	for n := l.keep() - 1; n >= 1; n-- {
		if err := os.Rename(l.Rotated(n), l.Rotated(n+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("event trail: rotate: %w", err)
		}
	}
	if err := os.Rename(l.Path, l.Rotated(1)); err != nil {
		return fmt.Errorf("event trail: rotate: %w", err)
	}
	return nil
}

package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrAlreadyInstalled is wrapped when a plugin is installed and a
// reinstall was not asked for.
var ErrAlreadyInstalled = errors.New("already installed")

// AlreadyInstalledError reports a plugin that is installed already, and
// what is installed.
type AlreadyInstalledError struct {
	Plugin, Version, Commit string
}

func (e *AlreadyInstalledError) Error() string {
	at := e.Version
	if e.Commit != "" {
		at += ", commit " + short(e.Commit)
	}
	return fmt.Sprintf("plugin %q is already installed (%s)", e.Plugin, at)
}

func (e *AlreadyInstalledError) Unwrap() error { return ErrAlreadyInstalled }

// ErrNoSuchPath is wrapped when a local source names nothing, and
// ErrNotDirectory when it names something other than a directory.
var (
	ErrNoSuchPath   = errors.New("no such directory")
	ErrNotDirectory = errors.New("not a directory")
)

// SourceError reports a source that cannot be used.
type SourceError struct {
	Source string
	Err    error
}

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// FetchError reports a source that could not be fetched.
type FetchError struct {
	Source string
	Err    error
}

func (e *FetchError) Error() string { return fmt.Sprintf("fetch %s: %v", e.Source, e.Err) }
func (e *FetchError) Unwrap() error { return e.Err }

// ConflictError reports a command that another plugin already provides,
// spelled the same or differing only by case.
type ConflictError struct {
	Command string
	Owner   string
	// Existing is Owner's spelling of the command when it differs from
	// Command only by case; empty when they are the same.
	Existing string
}

func (e *ConflictError) Error() string {
	if e.Existing != "" && e.Existing != e.Command {
		return fmt.Sprintf("command %q differs only by case from command %q of plugin %q: on case-insensitive filesystems (macOS, Windows) they are the same command", e.Command, e.Existing, e.Owner)
	}
	return fmt.Sprintf("command %q is already provided by plugin %q", e.Command, e.Owner)
}

// NameConflictError reports a plugin whose name differs from an installed
// plugin's only by case: on case-insensitive filesystems (macOS, Windows)
// they would share one directory, so they are refused on every OS, --force
// or not.
type NameConflictError struct {
	Name      string
	Installed string
}

func (e *NameConflictError) Error() string {
	return fmt.Sprintf("plugin %q differs only by case from installed plugin %q: on case-insensitive filesystems (macOS, Windows) they are the same plugin", e.Name, e.Installed)
}

// stagedError hides where fledge staged a plugin. A path inside a staging
// directory means nothing to the user and is gone by the time they read it,
// so the text names the plugin's own paths instead ("bin/x", not
// ".../plugins/.staging/install-12-34/tree/bin/x"). The error underneath
// stays in the chain.
type stagedError struct {
	err   error
	stage string
}

func (e *stagedError) Error() string {
	tree := filepath.Join(e.stage, "tree")
	s := e.err.Error()
	s = strings.ReplaceAll(s, tree+string(filepath.Separator), "")
	s = strings.ReplaceAll(s, tree, "the plugin's root")
	return strings.ReplaceAll(s, e.stage, "fledge's staging area")
}

func (e *stagedError) Unwrap() error { return e.err }

// hideStaging is err with the staging directory stage kept out of its text.
func hideStaging(err error, stage string) error {
	if err == nil || stage == "" || !strings.Contains(err.Error(), stage) {
		return err
	}
	return &stagedError{err: err, stage: stage}
}

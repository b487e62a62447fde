package install

import (
	"errors"
	"fmt"
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

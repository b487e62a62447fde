package install

import (
	"errors"
	"fmt"
)

// ErrAlreadyInstalled is wrapped when a plugin is installed and --force was
// not given.
var ErrAlreadyInstalled = errors.New("already installed")

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

// ConflictError reports a command that another plugin already provides.
type ConflictError struct {
	Command string
	Owner   string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("command %q is already provided by plugin %q", e.Command, e.Owner)
}

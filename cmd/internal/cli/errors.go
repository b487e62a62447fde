package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/corvidlabs/fledge-go/cmd/internal/fastrun"
)

// Exit codes of fledge's own commands (a plugin command exits with the
// plugin's code instead).
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitInterrupted = fastrun.ExitInterrupted
)

// Error codes used in {"error":{"code":…}} and by scripts.
const (
	CodeUsage            = "usage"
	CodeFailed           = fastrun.CodeFailed
	CodeInterrupted      = "interrupted"
	CodeApprovalRequired = "approval_required"
	CodeNotInstalled     = "not_installed"
	CodeAlreadyInstalled = "already_installed"
	CodeAmbiguous        = "ambiguous_name"
	CodeCommandConflict  = "command_conflict"
	CodeNameConflict     = "name_conflict"
	CodeInvalidManifest  = "invalid_manifest"
	CodeInvalidSource    = "invalid_source"
	CodeFetchFailed      = "fetch_failed"
	CodeBuildFailed      = "build_failed"
	CodeHookFailed       = "hook_failed"
	CodeStateCorrupt     = "state_corrupt"
	CodeUnknownCommand   = "unknown_command"
	CodeNotFound         = "not_found"
)

// usageError is a mistake in how fledge was called.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...)}
}

// exitCodeError ends fledge with a given code and no message: the message
// (if any) was already shown, or the code is a plugin's own.
type exitCodeError struct{ code int }

func (e *exitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// CodedError is implemented by errors that carry a machine-readable code.
type CodedError interface {
	error
	ErrorCode() string
}

// codedError attaches a code and an optional hint to an error.
type codedError struct {
	code string
	err  error
	hint string
}

func (e *codedError) Error() string     { return e.err.Error() }
func (e *codedError) Unwrap() error     { return e.err }
func (e *codedError) ErrorCode() string { return e.code }

// withCode marks err with a machine-readable code and a hint for humans.
func withCode(code string, err error, hint string) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, err: err, hint: hint}
}

// errorCode maps any error to its machine-readable code. The library
// packages' typed errors and sentinels are mapped in classify (codes.go).
func errorCode(err error) string {
	var ce CodedError
	if errors.As(err, &ce) {
		return ce.ErrorCode()
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return CodeUsage
	}
	if errors.Is(err, context.Canceled) {
		return CodeInterrupted
	}
	if c := classify(err); c != "" {
		return c
	}
	return CodeFailed
}

// errorHint returns the advice attached to err for a human, if any.
func errorHint(err error) string {
	var ce *codedError
	if errors.As(err, &ce) && ce.hint != "" {
		return ce.hint
	}
	return hintFor(err)
}

// itemsFailed ends a command that reports its items one by one (update,
// sync) when some failed: with 130 if the user interrupted any of them,
// else 1.
func itemsFailed(errs []error) error {
	code := ExitFailure
	for _, err := range errs {
		if exitCode(err) == ExitInterrupted {
			code = ExitInterrupted
		}
	}
	return &exitCodeError{code: code}
}

// exitCode maps an error to fledge's exit status.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ec *exitCodeError
	if errors.As(err, &ec) {
		return ec.code
	}
	switch errorCode(err) {
	case CodeUsage, CodeUnknownCommand:
		return ExitUsage
	case CodeInterrupted:
		return ExitInterrupted
	}
	return ExitFailure
}

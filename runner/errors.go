package runner

import (
	"errors"
	"fmt"
)

// Error codes of a failed run, from the plugin runtime taxonomy. They are
// part of fledge's scripting contract (the "error.code" of
// `fledge plugins run --json`).
const (
	CodeUnknownCommand       = "unknown_command"
	CodeLaunchFailed         = "launch_failed"
	CodeTimeout              = "timeout"
	CodeInterrupted          = "interrupted"
	CodeCrashed              = "crashed"
	CodeMalformedResponse    = "malformed_response"
	CodeProtocolMismatch     = "protocol_version_mismatch"
	CodeCapabilityNotAllowed = "capability_not_allowed"
	CodeStateCorrupt         = "state_corrupt"
	CodeBinaryOutsidePlugin  = "binary_outside_plugin"
	CodePluginMissing        = "plugin_missing"
	CodeUnsupportedRuntime   = "unsupported_runtime"
	CodeUnsupportedPlatform  = "unsupported_platform" // a binary built for another OS or architecture
	CodeManifestChanged      = "manifest_changed"
	// CodePluginDisabled: the command's plugin is disabled (fledge
	// plugins disable); nothing of it runs until it is enabled.
	CodePluginDisabled = "plugin_disabled"
)

// ErrUnknownCommand is wrapped by the error for a command no installed
// plugin provides.
var ErrUnknownCommand = errors.New("unknown command")

// Error is a run that failed in a way fledge can name. Code is one of the
// Code constants.
type Error struct {
	Code string
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the machine-readable code.
func (e *Error) ErrorCode() string { return e.Code }

func errorf(code, format string, a ...any) *Error {
	return &Error{Code: code, Err: fmt.Errorf(format, a...)}
}

// CodeOf returns the code of err if it is (or wraps) an *Error, else "".
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

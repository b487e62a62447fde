package pluginsdk

import (
	"errors"
	"fmt"

	"github.com/corvidlabs/fledge-go/termsafe"
)

// ErrCanceled is matched (with errors.Is) by every *CancelError: fledge
// withdrew a request or asked the plugin to stop.
var ErrCanceled = errors.New("canceled by fledge")

// ErrClosed reports that fledge closed the plugin's stdin (or the reader
// failed) before a request was answered. Nothing more will arrive.
var ErrClosed = errors.New("fledge closed the connection")

// ErrLineTooLong reports an inbound line longer than MaxLineSize. The stream
// cannot be resynchronised safely, so it ends the connection.
var ErrLineTooLong = errors.New("inbound line too long")

// ErrNoInit is returned by requests made before RecvInit.
var ErrNoInit = errors.New("pluginsdk: call RecvInit before sending requests")

// CancelError is the error of a request that fledge canceled. ID is the
// request's id, or empty when fledge canceled the whole run (Ctrl+C, a
// timeout); Reason is fledge's reason, e.g. protocol.ReasonUserInterrupt or
// protocol.ReasonNonInteractive.
type CancelError struct {
	ID     string
	Reason string
}

func (e *CancelError) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = "no reason given"
	}
	if e.ID == "" {
		return "canceled by fledge: " + reason
	}
	return fmt.Sprintf("request %s canceled by fledge: %s", e.ID, reason)
}

// Is makes errors.Is(err, ErrCanceled) true.
func (e *CancelError) Is(target error) bool { return target == ErrCanceled }

// ResponseError reports a response whose value does not have the shape the
// request expects (a number for a prompt, a string for a confirm, …).
type ResponseError struct {
	Type  string // the request type, e.g. "confirm"
	ID    string
	Value string // the raw JSON value, truncated
	Err   error
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s response %s: unexpected value %s: %v", e.Type, e.ID, e.Value, e.Err)
}

func (e *ResponseError) Unwrap() error { return e.Err }

func responseError(typ, id string, raw []byte, err error) error {
	v := termsafe.Truncate(string(raw), 200)
	if v == "" {
		v = "(missing)"
	}
	return &ResponseError{Type: typ, ID: id, Value: v, Err: err}
}
